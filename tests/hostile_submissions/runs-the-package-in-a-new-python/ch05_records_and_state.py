"""Cheat: start a fresh Python, which imports the package anew, and let it answer (the name
is only in a string). In the sandbox the package module's file is the refusing copy
(hiding.refusing_sources), so the fresh Python has no solution to run either."""
import json
import subprocess
import sys

CODE = ("import json, sys\nfrom learn_pi_lab.pi.session import resolve_labels as r\n"
        "print(json.dumps(r(json.load(sys.stdin))))")


def resolve_labels(entries):
    done = subprocess.run([sys.executable, "-c", CODE], input=json.dumps(entries),
                          capture_output=True, text=True)
    return json.loads(done.stdout)
