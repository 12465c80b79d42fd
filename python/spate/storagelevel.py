"""pyspark.StorageLevel: how a persisted DataFrame would be kept. spate runs in one process
and recomputes a DataFrame's plan per action (the rows are the same); the level is what
DataFrame.storageLevel reports after cache() / persist(), as in Spark."""

__all__ = ["StorageLevel"]


class StorageLevel:
    """Flags for memory / disk / off-heap use, deserialized data and the replication."""

    NONE: "StorageLevel"
    DISK_ONLY: "StorageLevel"
    DISK_ONLY_2: "StorageLevel"
    DISK_ONLY_3: "StorageLevel"
    MEMORY_ONLY: "StorageLevel"
    MEMORY_ONLY_2: "StorageLevel"
    MEMORY_AND_DISK: "StorageLevel"
    MEMORY_AND_DISK_2: "StorageLevel"
    OFF_HEAP: "StorageLevel"
    MEMORY_AND_DISK_DESER: "StorageLevel"

    def __init__(self, useDisk: bool, useMemory: bool, useOffHeap: bool, deserialized: bool,
                 replication: int = 1):
        self.useDisk = useDisk
        self.useMemory = useMemory
        self.useOffHeap = useOffHeap
        self.deserialized = deserialized
        self.replication = replication

    def _key(self) -> tuple:
        return (self.useDisk, self.useMemory, self.useOffHeap, self.deserialized,
                self.replication)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StorageLevel) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return "StorageLevel(%s, %s, %s, %s, %s)" % self._key()

    def __str__(self) -> str:
        words = [w for w, on in (("Disk", self.useDisk), ("Memory", self.useMemory),
                                 ("OffHeap", self.useOffHeap)) if on]
        words.append("Deserialized" if self.deserialized else "Serialized")
        words.append("%sx Replicated" % self.replication)
        return " ".join(words)


StorageLevel.NONE = StorageLevel(False, False, False, False)
StorageLevel.DISK_ONLY = StorageLevel(True, False, False, False)
StorageLevel.DISK_ONLY_2 = StorageLevel(True, False, False, False, 2)
StorageLevel.DISK_ONLY_3 = StorageLevel(True, False, False, False, 3)
StorageLevel.MEMORY_ONLY = StorageLevel(False, True, False, False)
StorageLevel.MEMORY_ONLY_2 = StorageLevel(False, True, False, False, 2)
StorageLevel.MEMORY_AND_DISK = StorageLevel(True, True, False, False)
StorageLevel.MEMORY_AND_DISK_2 = StorageLevel(True, True, False, False, 2)
StorageLevel.OFF_HEAP = StorageLevel(True, True, True, False)
StorageLevel.MEMORY_AND_DISK_DESER = StorageLevel(True, True, False, True)
