"""Cheat (or accident): keep files where nobody counts them. ``/dev`` in the sandbox is a
file system in the machine's memory, made by ``bwrap --dev``, and so is its ``/dev/shm``:
neither had a size (half the machine's memory each) nor was either counted by the disk
limit, which counts the run's own folders. Three files of 48 MiB in ``/dev/shm`` and three
more in ``/dev`` held 288 MiB of the machine's memory beside the limits (and a few hundred
such files all of it). ``/dev`` is now read-only (its devices still work) and ``/dev/shm`` a
small file system of its own."""
chunk = b"x" * (1 << 20)
for folder in ("/dev/shm", "/dev"):
    for number in range(3):
        with open(f"{folder}/fill-{number}", "wb") as handle:
            for _ in range(48):
                handle.write(chunk)


def resolve_labels(entries):
    return {}
