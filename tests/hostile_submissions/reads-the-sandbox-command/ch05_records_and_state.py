"""Cheat: read where the teacher keeps things from inside the sandbox: bwrap's command line
(pid 1 in the sandbox's pid namespace names every folder it hid or showed) and the PATH
(which names the teacher's home's folders)."""
import os
import stat

seen = []
for pid in os.listdir("/proc"):
    if pid.isdigit():
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                seen.append(handle.read().replace(b"\0", b" ").decode("utf-8", "replace"))
        except OSError:
            pass
for fd in os.listdir("/proc/self/fd"):   # an options file left open would say it all too
    try:
        if not stat.S_ISREG(os.stat(f"/proc/self/fd/{fd}").st_mode):
            continue   # (a pipe: reading it would wait for ever)
        with open(f"/proc/self/fd/{fd}", "rb") as handle:
            seen.append(handle.read(4096).replace(b"\0", b" ").decode("utf-8", "replace"))
    except OSError:
        pass
leaks = [text for text in seen if "--ro-bind" in text or "--tmpfs" in text]
if leaks or os.environ.get("PATH") != "/usr/bin:/bin":
    raise RuntimeError(f"LEAKED: {leaks[:1]} PATH={os.environ.get('PATH')}")
raise PermissionError("nothing to read: no sandbox option and no PATH of the teacher's")
