"""Cheat: change the host's kernel settings from inside the sandbox (a core_pattern pointing at
a program of the learner's runs it as the host's root; drop_caches and pid_max slow or stop
every other learner). Harmless here: it only asks the kernel whether it may write them
(``os.access``) and never writes; every file under /proc and /sys it may write is named."""
import os

SETTINGS = ("/proc/sys/kernel/core_pattern", "/proc/sys/vm/drop_caches",
            "/proc/sys/kernel/pid_max")
# Open to every user on the host by the kernel itself, and not host-wide: ns_last_pid is the
# sandbox's own pid namespace (writing it needs a capability there too), a pressure file
# only registers a trigger on the open file.
EVERY_USERS = {"/proc/sys/kernel/ns_last_pid", "/proc/pressure/io", "/proc/pressure/cpu",
               "/proc/pressure/memory", "/proc/pressure/irq"}


def writable_host_files() -> list[str]:
    found = [path for path in SETTINGS if os.access(path, os.W_OK)]
    for top in ("/proc", "/sys"):
        for folder, folders, names in os.walk(top):
            if folder == "/proc":   # the processes' own folders are not host-wide
                folders[:] = [name for name in folders if not name.isdigit()
                              and name not in ("self", "thread-self")]
            found += [os.path.join(folder, name) for name in names
                      if os.access(os.path.join(folder, name), os.W_OK)]
    return sorted(set(found) - EVERY_USERS)


found = writable_host_files()
if found:
    raise RuntimeError(f"WRITABLE host settings ({len(found)}): {', '.join(found[:5])}")
raise PermissionError("refused: no host-wide file under /proc or /sys is writable here")
