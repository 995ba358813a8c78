"""Wrong on purpose (memory-backend): stores and returns the caller's own dicts, so changing one later rewrites history."""

class MemoryBackend:
    def __init__(self):
        self.objects = []

    def append(self, obj):
        self.objects.append(obj)

    def read_all(self):
        return list(self.objects)
