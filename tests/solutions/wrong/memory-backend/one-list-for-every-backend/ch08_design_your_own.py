"""Wrong on purpose (memory-backend): the list is a class attribute, shared by every backend."""

import copy


class MemoryBackend:
    objects: list = []

    def append(self, obj):
        self.objects.append(copy.deepcopy(obj))

    def read_all(self):
        return copy.deepcopy(self.objects)
