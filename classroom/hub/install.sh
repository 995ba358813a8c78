#!/bin/sh
# Install what JupyterHub needs to run this course on one machine, into PREFIX
# (default /opt/learn-pi-lab), readable by every user of the machine:
#
#   PREFIX/venv     Python (the system's python3), JupyterHub, nbgitpuller, the course's
#                   workbook packages and the course itself: the hub and every learner's
#                   JupyterLab run from it
#   PREFIX/proxy    configurable-http-proxy from npm, the version classroom/hub/package-lock.json pins
#
#   sudo classroom/hub/install.sh [PREFIX]
#
# Needs python3 with its venv module (Debian: apt-get install python3-venv), node and npm.
# Run again after the course changes: it installs again only what changed (a stamp records
# what it installed from).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
COURSE=$(cd "$HERE/../.." && pwd)
PREFIX=${1:-${LEARN_PI_LAB_HUB_PREFIX:-/opt/learn-pi-lab}}
PYTHON=${PYTHON:-/usr/bin/python3}

stamp=$(cat "$HERE/requirements.txt" "$HERE/package-lock.json" "$COURSE/pyproject.toml" \
          "$COURSE/learn_pi_lab/__init__.py" | sha256sum | cut -c1-16)
if [ -f "$PREFIX/.installed" ] && [ "$(cat "$PREFIX/.installed")" = "$stamp" ]; then
  echo "learn-pi-lab hub: $PREFIX is up to date"
  exit 0
fi

umask 022
mkdir -p "$PREFIX"
echo "learn-pi-lab hub: Python environment in $PREFIX/venv"
"$PYTHON" -m venv "$PREFIX/venv"
"$PREFIX/venv/bin/pip" install --quiet --upgrade pip
"$PREFIX/venv/bin/pip" install --quiet -r "$HERE/requirements.txt" "$COURSE[workbook]"
"$PREFIX/venv/bin/python" -m ipykernel install --sys-prefix --name python3 > /dev/null

echo "learn-pi-lab hub: configurable-http-proxy in $PREFIX/proxy"
mkdir -p "$PREFIX/proxy"
cp "$HERE/package.json" "$HERE/package-lock.json" "$PREFIX/proxy/"
(cd "$PREFIX/proxy" && npm ci --omit=dev --no-audit --no-fund --loglevel=error > /dev/null)

chmod -R a+rX "$PREFIX"
echo "$stamp" > "$PREFIX/.installed"
echo "learn-pi-lab hub: installed in $PREFIX"
