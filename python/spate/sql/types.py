"""Spark SQL data types and Row, mirroring :mod:`pyspark.sql.types`.

Types are plain Python values (compared structurally); the native module converts them to
and from the engine's types. ``Row`` is a tuple subclass with named fields, as in PySpark.
"""

import datetime
import decimal
import functools
import json as _json
from typing import Any, Dict, Iterator, List, Optional, Tuple, Union

__all__ = [
    "DataType", "NullType", "StringType", "CharType", "VarcharType", "BinaryType", "BooleanType",
    "DateType", "TimestampType", "TimestampNTZType", "DecimalType", "DoubleType", "FloatType",
    "ByteType", "IntegerType", "LongType", "ShortType", "DayTimeIntervalType",
    "YearMonthIntervalType", "ArrayType", "MapType", "StructField", "StructType", "Row",
    "AtomicType", "NumericType", "IntegralType", "FractionalType",
]


class DataType:
    """Base class for data types."""

    def __repr__(self) -> str:
        return self.__class__.__name__ + "()"

    def __hash__(self) -> int:
        return hash(str(self))

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, self.__class__) and self.__dict__ == other.__dict__

    def __ne__(self, other: Any) -> bool:
        return not self.__eq__(other)

    @classmethod
    def typeName(cls) -> str:
        return cls.__name__[:-4].lower()

    def simpleString(self) -> str:
        return self.typeName()

    def jsonValue(self) -> Union[str, Dict[str, Any]]:
        return self.typeName()

    def json(self) -> str:
        return _json.dumps(self.jsonValue(), separators=(",", ":"), sort_keys=True)

    def needConversion(self) -> bool:
        return False

    @classmethod
    def fromDDL(cls, ddl: str) -> "DataType":
        return _parse_datatype_string(ddl)


class DataTypeSingleton(type):
    """Metaclass making parameterless types singletons."""

    _instances: Dict[type, Any] = {}

    def __call__(cls):
        if cls not in cls._instances:
            cls._instances[cls] = super().__call__()
        return cls._instances[cls]


class NullType(DataType, metaclass=DataTypeSingleton):
    @classmethod
    def typeName(cls) -> str:
        return "void"


class AtomicType(DataType):
    pass


class NumericType(AtomicType):
    pass


class IntegralType(NumericType, metaclass=DataTypeSingleton):
    pass


class FractionalType(NumericType):
    pass


class StringType(AtomicType, metaclass=DataTypeSingleton):
    pass


class CharType(AtomicType):
    def __init__(self, length: int):
        self.length = length

    def simpleString(self) -> str:
        return "char(%d)" % self.length

    def jsonValue(self):
        return self.simpleString()

    def __repr__(self) -> str:
        return "CharType(%d)" % self.length


class VarcharType(AtomicType):
    def __init__(self, length: int):
        self.length = length

    def simpleString(self) -> str:
        return "varchar(%d)" % self.length

    def jsonValue(self):
        return self.simpleString()

    def __repr__(self) -> str:
        return "VarcharType(%d)" % self.length


class BinaryType(AtomicType, metaclass=DataTypeSingleton):
    pass


class BooleanType(AtomicType, metaclass=DataTypeSingleton):
    pass


class DateType(AtomicType, metaclass=DataTypeSingleton):
    pass


class TimestampType(AtomicType, metaclass=DataTypeSingleton):
    pass


class TimestampNTZType(AtomicType, metaclass=DataTypeSingleton):
    @classmethod
    def typeName(cls) -> str:
        return "timestamp_ntz"


class DecimalType(FractionalType):
    def __init__(self, precision: int = 10, scale: int = 0):
        self.precision = precision
        self.scale = scale
        self.hasPrecisionInfo = True

    def simpleString(self) -> str:
        return "decimal(%d,%d)" % (self.precision, self.scale)

    def jsonValue(self) -> str:
        return "decimal(%d,%d)" % (self.precision, self.scale)

    def __repr__(self) -> str:
        return "DecimalType(%d,%d)" % (self.precision, self.scale)


class DoubleType(FractionalType, metaclass=DataTypeSingleton):
    pass


class FloatType(FractionalType, metaclass=DataTypeSingleton):
    pass


class ByteType(IntegralType):
    def simpleString(self) -> str:
        return "tinyint"


class IntegerType(IntegralType):
    def simpleString(self) -> str:
        return "int"


class LongType(IntegralType):
    def simpleString(self) -> str:
        return "bigint"


class ShortType(IntegralType):
    def simpleString(self) -> str:
        return "smallint"


class AnsiIntervalType(AtomicType):
    pass


class DayTimeIntervalType(AnsiIntervalType):
    DAY = 0
    HOUR = 1
    MINUTE = 2
    SECOND = 3
    _fields = {DAY: "day", HOUR: "hour", MINUTE: "minute", SECOND: "second"}

    def __init__(self, startField: Optional[int] = None, endField: Optional[int] = None):
        if startField is None and endField is None:
            startField, endField = DayTimeIntervalType.DAY, DayTimeIntervalType.SECOND
        elif startField is not None and endField is None:
            endField = startField
        if startField not in self._fields or endField not in self._fields:
            raise RuntimeError("interval %s to %s is invalid" % (startField, endField))
        self.startField = startField
        self.endField = endField

    def _str_repr(self) -> str:
        s, e = self._fields[self.startField], self._fields[self.endField]
        return "interval %s" % s if s == e else "interval %s to %s" % (s, e)

    simpleString = _str_repr
    jsonValue = _str_repr

    def __repr__(self) -> str:
        return "%s(%d, %d)" % (type(self).__name__, self.startField, self.endField)


class YearMonthIntervalType(AnsiIntervalType):
    YEAR = 0
    MONTH = 1
    _fields = {YEAR: "year", MONTH: "month"}

    def __init__(self, startField: Optional[int] = None, endField: Optional[int] = None):
        if startField is None and endField is None:
            startField, endField = YearMonthIntervalType.YEAR, YearMonthIntervalType.MONTH
        elif startField is not None and endField is None:
            endField = startField
        if startField not in self._fields or endField not in self._fields:
            raise RuntimeError("interval %s to %s is invalid" % (startField, endField))
        self.startField = startField
        self.endField = endField

    def _str_repr(self) -> str:
        s, e = self._fields[self.startField], self._fields[self.endField]
        return "interval %s" % s if s == e else "interval %s to %s" % (s, e)

    simpleString = _str_repr
    jsonValue = _str_repr

    def __repr__(self) -> str:
        return "%s(%d, %d)" % (type(self).__name__, self.startField, self.endField)


class ArrayType(DataType):
    def __init__(self, elementType: DataType, containsNull: bool = True):
        assert isinstance(elementType, DataType), "elementType %s should be an instance of DataType" % elementType
        self.elementType = elementType
        self.containsNull = containsNull

    def simpleString(self) -> str:
        return "array<%s>" % self.elementType.simpleString()

    def __repr__(self) -> str:
        return "ArrayType(%s, %s)" % (self.elementType, str(self.containsNull))

    def jsonValue(self) -> Dict[str, Any]:
        return {"type": self.typeName(), "elementType": self.elementType.jsonValue(),
                "containsNull": self.containsNull}


class MapType(DataType):
    def __init__(self, keyType: DataType, valueType: DataType, valueContainsNull: bool = True):
        assert isinstance(keyType, DataType), "keyType %s should be an instance of DataType" % keyType
        assert isinstance(valueType, DataType), "valueType %s should be an instance of DataType" % valueType
        self.keyType = keyType
        self.valueType = valueType
        self.valueContainsNull = valueContainsNull

    def simpleString(self) -> str:
        return "map<%s,%s>" % (self.keyType.simpleString(), self.valueType.simpleString())

    def __repr__(self) -> str:
        return "MapType(%s, %s, %s)" % (self.keyType, self.valueType, str(self.valueContainsNull))

    def jsonValue(self) -> Dict[str, Any]:
        return {"type": self.typeName(), "keyType": self.keyType.jsonValue(),
                "valueType": self.valueType.jsonValue(), "valueContainsNull": self.valueContainsNull}


class StructField(DataType):
    def __init__(self, name: str, dataType: DataType, nullable: bool = True,
                 metadata: Optional[Dict[str, Any]] = None):
        assert isinstance(dataType, DataType), "dataType %s should be an instance of DataType" % dataType
        assert isinstance(name, str), "field name %s should be a string" % name
        self.name = name
        self.dataType = dataType
        self.nullable = nullable
        self.metadata = metadata or {}

    def simpleString(self) -> str:
        return "%s:%s" % (self.name, self.dataType.simpleString())

    def __repr__(self) -> str:
        return "StructField('%s', %s, %s)" % (self.name, self.dataType, str(self.nullable))

    def jsonValue(self) -> Dict[str, Any]:
        return {"name": self.name, "type": self.dataType.jsonValue(), "nullable": self.nullable,
                "metadata": self.metadata}

    def typeName(self) -> str:  # type: ignore[override]
        raise TypeError("StructField does not have typeName. Use typeName on its type explicitly instead.")


class StructType(DataType):
    def __init__(self, fields: Optional[List[StructField]] = None):
        self.fields = list(fields) if fields else []
        self.names = [f.name for f in self.fields]
        assert all(isinstance(f, StructField) for f in self.fields), "fields should be a list of StructField"

    def add(self, field: Union[str, StructField], data_type: Union[str, DataType, None] = None,
            nullable: bool = True, metadata: Optional[Dict[str, Any]] = None) -> "StructType":
        if isinstance(field, StructField):
            self.fields.append(field)
            self.names.append(field.name)
        else:
            if not isinstance(field, str) or data_type is None:
                raise ValueError("Must specify DataType if passing name of struct_field to create.")
            if isinstance(data_type, str):
                data_type = _parse_datatype_string(data_type)
            self.fields.append(StructField(field, data_type, nullable, metadata))
            self.names.append(field)
        return self

    def __iter__(self) -> Iterator[StructField]:
        return iter(self.fields)

    def __len__(self) -> int:
        return len(self.fields)

    def __getitem__(self, key: Union[str, int, slice]):
        if isinstance(key, str):
            for field in self:
                if field.name == key:
                    return field
            raise KeyError("No StructField named {0}".format(key))
        if isinstance(key, int):
            return self.fields[key]
        if isinstance(key, slice):
            return StructType(self.fields[key])
        raise TypeError("StructType keys should be strings, integers or slices")

    def simpleString(self) -> str:
        return "struct<%s>" % (",".join(f.simpleString() for f in self))

    def __repr__(self) -> str:
        return "StructType([%s])" % ", ".join(str(field) for field in self)

    def jsonValue(self) -> Dict[str, Any]:
        return {"type": self.typeName(), "fields": [f.jsonValue() for f in self]}

    def fieldNames(self) -> List[str]:
        return list(self.names)

    def treeString(self, level: Optional[int] = None) -> str:
        from spate import _spate
        return _spate.tree_string(self)

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, StructType) and self.fields == other.fields

    def __hash__(self) -> int:
        return hash(self.simpleString())

    @classmethod
    def fromDDL(cls, ddl: str) -> "StructType":  # type: ignore[override]
        from spate import _spate
        return _spate.parse_ddl(ddl)


def _parse_datatype_string(s: str) -> DataType:
    """Parses a DDL schema ("a INT, b STRING") or a type string ("int", "array<int>")."""
    from spate import _spate
    from spate.errors import ParseException
    try:
        return _spate.parse_datatype(s)
    except ParseException:
        try:
            return _spate.parse_ddl(s)
        except ParseException:
            pass
        raise


# ---- JSON form (DataType.json()/jsonValue()) ---------------------------------------------------

_ATOMIC_JSON = {
    "void": NullType, "string": StringType, "binary": BinaryType, "boolean": BooleanType,
    "date": DateType, "timestamp": TimestampType, "timestamp_ntz": TimestampNTZType,
    "double": DoubleType, "float": FloatType, "byte": ByteType, "integer": IntegerType,
    "long": LongType, "short": ShortType, "null": NullType,
}


def _parse_datatype_json_value(value: Any) -> DataType:
    if isinstance(value, str):
        if value in _ATOMIC_JSON:
            return _ATOMIC_JSON[value]()
        if value == "decimal":
            return DecimalType()
        if value.startswith("decimal("):
            p, sc = value[len("decimal("):-1].split(",")
            return DecimalType(int(p), int(sc))
        if value.startswith("interval "):
            return _parse_datatype_string(value)
        if value.startswith("char(") or value.startswith("varchar("):
            n = int(value[value.index("(") + 1:-1])
            return CharType(n) if value.startswith("char(") else VarcharType(n)
        raise ValueError("Could not parse datatype: %s" % value)
    tpe = value["type"]
    if tpe == "struct":
        return StructType.fromJson(value)
    if tpe == "array":
        return ArrayType(_parse_datatype_json_value(value["elementType"]), value["containsNull"])
    if tpe == "map":
        return MapType(_parse_datatype_json_value(value["keyType"]),
                       _parse_datatype_json_value(value["valueType"]), value["valueContainsNull"])
    raise ValueError("Could not parse datatype: %s" % value)


def _parse_datatype_json_string(json_string: str) -> DataType:
    return _parse_datatype_json_value(_json.loads(json_string))


def _struct_from_json(cls: type, json: Dict[str, Any]) -> "StructType":
    return StructType([StructField(f["name"], _parse_datatype_json_value(f["type"]), f.get("nullable", True),
                                   f.get("metadata")) for f in json["fields"]])


StructType.fromJson = classmethod(_struct_from_json)  # type: ignore[attr-defined]
DataType.fromJson = staticmethod(_parse_datatype_json_value)  # type: ignore[attr-defined]


# ---- Row ------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=512)
def _row_class(fields: Tuple[str, ...]) -> type:
    """A Row subclass whose instances share the field names (used for collect() results;
    ``isinstance(r, Row)`` holds and rows behave exactly like ``Row(**kwargs)``)."""
    return type("Row", (Row,), {"__slots__": (), "__fields__": list(fields), "__module__": Row.__module__})


def _create_row(fields: List[str], values: List[Any]) -> "Row":
    row = tuple.__new__(Row, values)
    row.__fields__ = list(fields)
    return row


class Row(tuple):
    """A row of a DataFrame (pyspark.sql.Row): fields by position, by name (``row.key``,
    ``row["key"]``), ``asDict()``; equal to a tuple with the same values."""

    def __new__(cls, *args: Any, **kwargs: Any) -> "Row":
        if args and kwargs:
            raise ValueError("Can not use both args and kwargs to create Row")
        if kwargs:
            row = tuple.__new__(cls, list(kwargs.values()))
            row.__fields__ = list(kwargs.keys())
            return row
        # A "row class": Row("a", "b") used as a factory, Row("a", "b")(1, 2).
        return tuple.__new__(cls, args)

    def asDict(self, recursive: bool = False) -> Dict[str, Any]:
        if not hasattr(self, "__fields__"):
            raise TypeError("Cannot convert a Row class into dict")
        if recursive:
            def conv(obj: Any) -> Any:
                if isinstance(obj, Row):
                    return obj.asDict(True)
                if isinstance(obj, list):
                    return [conv(o) for o in obj]
                if isinstance(obj, dict):
                    return dict((k, conv(v)) for k, v in obj.items())
                return obj
            return dict(zip(self.__fields__, (conv(o) for o in self)))
        return dict(zip(self.__fields__, self))

    def __contains__(self, item: Any) -> bool:
        if hasattr(self, "__fields__"):
            return item in self.__fields__
        return super().__contains__(item)

    def __call__(self, *args: Any) -> "Row":
        if len(args) > len(self):
            raise ValueError("Can not create Row with fields %s, expected %d values but got %s"
                             % (self, len(self), args))
        return _create_row(list(self), list(args))

    def __getitem__(self, item: Any) -> Any:
        if isinstance(item, (int, slice)):
            return super().__getitem__(item)
        try:
            idx = self.__fields__.index(item)
            return super().__getitem__(idx)
        except IndexError:
            raise KeyError(item)
        except (ValueError, AttributeError):
            raise ValueError(item)

    def __getattr__(self, item: str) -> Any:
        if item.startswith("__"):
            raise AttributeError(item)
        try:
            idx = self.__fields__.index(item)
            return self[idx]
        except IndexError:
            raise AttributeError(item)
        except ValueError:
            raise AttributeError(item)

    def __setattr__(self, key: Any, value: Any) -> None:
        if key != "__fields__":
            raise RuntimeError("Row is read-only")
        self.__dict__[key] = value

    def __reduce__(self):
        if hasattr(self, "__fields__"):
            return (_create_row, (self.__fields__, tuple(self)))
        return tuple.__reduce__(self)

    def __repr__(self) -> str:
        if hasattr(self, "__fields__"):
            return "Row(%s)" % ", ".join("%s=%r" % (k, v) for k, v in zip(self.__fields__, tuple(self)))
        return "<Row(%s)>" % ", ".join(repr(field) for field in self)


# ---- inference (PySpark's _infer_type / _infer_schema / _merge_type) -------------------------

def _infer_type(obj: Any, for_literal: bool = False) -> DataType:
    if obj is None:
        return NullType()
    if isinstance(obj, bool):
        return BooleanType()
    if isinstance(obj, int):
        if for_literal and -(1 << 31) <= obj < (1 << 31):
            return IntegerType()
        return LongType()
    if isinstance(obj, float):
        return DoubleType()
    if isinstance(obj, str):
        return StringType()
    if isinstance(obj, (bytes, bytearray, memoryview)):
        return BinaryType()
    if isinstance(obj, decimal.Decimal):
        if for_literal:
            sign, digits, exp = obj.as_tuple()
            scale = max(0, -exp) if isinstance(exp, int) else 0
            precision = max(len(digits) + (exp if isinstance(exp, int) and exp > 0 else 0), scale, 1)
            return DecimalType(min(precision, 38), scale)
        return DecimalType(38, 18)
    if isinstance(obj, datetime.datetime):
        return TimestampType()
    if isinstance(obj, datetime.date):
        return DateType()
    if isinstance(obj, datetime.timedelta):
        return DayTimeIntervalType()
    if isinstance(obj, dict):
        key_type, value_type = NullType(), NullType()
        for k, v in obj.items():
            if k is not None:
                key_type = _merge_type(key_type, _infer_type(k, for_literal))
            if v is not None:
                value_type = _merge_type(value_type, _infer_type(v, for_literal))
        return MapType(key_type, value_type, True)
    if isinstance(obj, Row) and hasattr(obj, "__fields__"):
        return StructType([StructField(k, _infer_type(v, for_literal), True)
                           for k, v in zip(obj.__fields__, tuple(obj))])
    if isinstance(obj, (list, tuple)) and not isinstance(obj, Row):
        element = NullType()
        for v in obj:
            if v is not None:
                element = _merge_type(element, _infer_type(v, for_literal))
        return ArrayType(element, True)
    raise TypeError("not supported type: %s" % type(obj))


def _infer_schema(row: Any, names: Optional[List[str]] = None) -> StructType:
    if isinstance(row, dict):
        items = sorted(row.items())
    elif isinstance(row, Row) and hasattr(row, "__fields__"):
        items = list(zip(row.__fields__, tuple(row)))
    elif isinstance(row, (tuple, list)):
        if names is None:
            names = ["_%d" % i for i in range(1, len(row) + 1)]
        elif len(names) < len(row):
            names = list(names) + ["_%d" % i for i in range(len(names) + 1, len(row) + 1)]
        items = list(zip(names, row))
    else:
        raise TypeError("Can not infer schema for type: %s" % type(row))
    return StructType([StructField(k, _infer_type(v), True) for k, v in items])


def _merge_type(a: DataType, b: DataType, name: Optional[str] = None) -> DataType:
    if isinstance(a, NullType):
        return b
    if isinstance(b, NullType):
        return a
    if isinstance(a, LongType) and isinstance(b, DoubleType) or isinstance(a, DoubleType) and isinstance(b, LongType):
        return DoubleType()
    if type(a) is not type(b):
        raise TypeError("[CANNOT_MERGE_TYPE] Can not merge type `%s` and `%s`%s."
                        % (type(a).__name__, type(b).__name__, " for field `%s`" % name if name else ""))
    if isinstance(a, StructType):
        nfs = dict((f.name, f.dataType) for f in b.fields)
        fields = [StructField(f.name, _merge_type(f.dataType, nfs.get(f.name, NullType()), f.name))
                  for f in a.fields]
        names = set(f.name for f in fields)
        for n in nfs:
            if n not in names:
                fields.append(StructField(n, nfs[n]))
        return StructType(fields)
    if isinstance(a, ArrayType):
        return ArrayType(_merge_type(a.elementType, b.elementType, name), True)
    if isinstance(a, MapType):
        return MapType(_merge_type(a.keyType, b.keyType, name), _merge_type(a.valueType, b.valueType, name), True)
    return a


def _has_nulltype(dt: DataType) -> bool:
    if isinstance(dt, StructType):
        return any(_has_nulltype(f.dataType) for f in dt.fields)
    if isinstance(dt, ArrayType):
        return _has_nulltype(dt.elementType)
    if isinstance(dt, MapType):
        return _has_nulltype(dt.keyType) or _has_nulltype(dt.valueType)
    return isinstance(dt, NullType)


def _decimal_unscaled(value: Any, scale: int) -> Optional[int]:
    """The unscaled integer of `value` at `scale` (half-up rounding), or None if not finite."""
    if isinstance(value, int):
        return value * 10 ** scale
    if not value.is_finite():
        return None
    ctx = decimal.Context(prec=100, rounding=decimal.ROUND_HALF_UP)
    return int(value.scaleb(scale, ctx).to_integral_value(rounding=decimal.ROUND_HALF_UP, context=ctx))
