"""The Arrow PyCapsule interface, checked with ctypes (no pyarrow on this machine)."""
import ctypes

from spate.sql import Row


class ArrowSchema(ctypes.Structure):
    pass


ArrowSchema._fields_ = [("format", ctypes.c_char_p), ("name", ctypes.c_char_p), ("metadata", ctypes.c_char_p),
                        ("flags", ctypes.c_int64), ("n_children", ctypes.c_int64),
                        ("children", ctypes.POINTER(ctypes.POINTER(ArrowSchema))),
                        ("dictionary", ctypes.POINTER(ArrowSchema)),
                        ("release", ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowSchema))),
                        ("private_data", ctypes.c_void_p)]


class ArrowArray(ctypes.Structure):
    pass


ArrowArray._fields_ = [("length", ctypes.c_int64), ("null_count", ctypes.c_int64), ("offset", ctypes.c_int64),
                       ("n_buffers", ctypes.c_int64), ("n_children", ctypes.c_int64),
                       ("buffers", ctypes.POINTER(ctypes.c_void_p)),
                       ("children", ctypes.POINTER(ctypes.POINTER(ArrowArray))),
                       ("dictionary", ctypes.POINTER(ArrowArray)),
                       ("release", ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArray))),
                       ("private_data", ctypes.c_void_p)]


class ArrowArrayStream(ctypes.Structure):
    pass


ArrowArrayStream._fields_ = [
    ("get_schema", ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ArrowArrayStream), ctypes.POINTER(ArrowSchema))),
    ("get_next", ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ArrowArrayStream), ctypes.POINTER(ArrowArray))),
    ("get_last_error", ctypes.CFUNCTYPE(ctypes.c_char_p, ctypes.POINTER(ArrowArrayStream))),
    ("release", ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArrayStream))),
    ("private_data", ctypes.c_void_p)]

_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype = ctypes.c_void_p
_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def test_arrow_schema_capsule(spark):
    df = spark.createDataFrame([], "id BIGINT, s STRING, d DECIMAL(10,2), t TIMESTAMP")
    cap = df.__arrow_c_schema__()
    schema = ArrowSchema.from_address(_get_pointer(cap, b"arrow_schema"))
    assert schema.format == b"+s"
    kids = [schema.children[i].contents for i in range(schema.n_children)]
    assert [(k.name, k.format) for k in kids] == [(b"id", b"l"), (b"s", b"u"), (b"d", b"d:10,2"),
                                                   (b"t", b"tsu:UTC")]


def test_arrow_stream_capsule_values(spark):
    df = spark.range(5).selectExpr("id * 10 AS v")
    cap = df.__arrow_c_stream__()
    stream = ArrowArrayStream.from_address(_get_pointer(cap, b"arrow_array_stream"))
    values = []
    while True:
        arr = ArrowArray()
        assert stream.get_next(ctypes.byref(stream), ctypes.byref(arr)) == 0
        if not arr.release:
            break
        child = arr.children[0].contents
        data = ctypes.cast(child.buffers[1], ctypes.POINTER(ctypes.c_int64))
        values += [data[child.offset + i] for i in range(child.length)]
        arr.release(ctypes.byref(arr))
    assert values == [0, 10, 20, 30, 40]
    del cap  # the capsule's destructor releases the stream


def test_create_dataframe_from_arrow_producer(spark):
    src = spark.createDataFrame([(1, "x", [1, 2]), (2, None, None)], "a INT, b STRING, c ARRAY<INT>")
    copy = spark.createDataFrame(src)
    assert copy.schema == src.schema
    assert copy.collect() == [Row(a=1, b="x", c=[1, 2]), Row(a=2, b=None, c=None)]
    assert copy.filter("a > 1").count() == 1
