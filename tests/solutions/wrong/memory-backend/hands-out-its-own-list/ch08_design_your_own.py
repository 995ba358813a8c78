"""Wrong on purpose (memory-backend): copies on the way in but read_all() returns the stored list itself, so a caller can clear history."""

import copy


class MemoryBackend:
    def __init__(self):
        self.objects = []

    def append(self, obj):
        self.objects.append(copy.deepcopy(obj))

    def read_all(self):
        return self.objects
