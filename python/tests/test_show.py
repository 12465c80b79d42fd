"""show()/printSchema() print exactly what Spark prints (examples from PySpark's docs)."""


def out(capsys):
    return capsys.readouterr().out


def test_show_default(people, capsys):
    people.show()
    assert out(capsys) == (
        "+---+-----+\n"
        "|age| name|\n"
        "+---+-----+\n"
        "| 14|  Tom|\n"
        "| 23|Alice|\n"
        "| 16|  Bob|\n"
        "+---+-----+\n"
        "\n")


def test_show_n(people, capsys):
    people.show(2)
    assert out(capsys) == (
        "+---+-----+\n"
        "|age| name|\n"
        "+---+-----+\n"
        "| 14|  Tom|\n"
        "| 23|Alice|\n"
        "+---+-----+\n"
        "only showing top 2 rows\n"
        "\n")


def test_show_one_row_singular(people, capsys):
    people.show(1)
    assert out(capsys).endswith("only showing top 1 row\n\n")


def test_show_truncate_int(people, capsys):
    people.show(truncate=3)
    assert out(capsys) == (
        "+---+----+\n"
        "|age|name|\n"
        "+---+----+\n"
        "| 14| Tom|\n"
        "| 23| Ali|\n"
        "| 16| Bob|\n"
        "+---+----+\n"
        "\n")


def test_show_vertical(people, capsys):
    people.show(vertical=True)
    assert out(capsys) == (
        "-RECORD 0-----\n"
        " age  | 14    \n"
        " name | Tom   \n"
        "-RECORD 1-----\n"
        " age  | 23    \n"
        " name | Alice \n"
        "-RECORD 2-----\n"
        " age  | 16    \n"
        " name | Bob   \n"
        "\n")


def test_show_truncate_false_and_nulls(spark, capsys):
    df = spark.createDataFrame([(1, "a", None), (2, "abcdefghijklmnopqrstuvwxyz", "x"), (3, "c", "y")],
                               "id INT, name STRING, tag STRING")
    df.show(2)
    df.show(2, truncate=False)
    df.limit(1).show(vertical=True)
    assert out(capsys) == (
        "+---+--------------------+----+\n"
        "| id|                name| tag|\n"
        "+---+--------------------+----+\n"
        "|  1|                   a|NULL|\n"
        "|  2|abcdefghijklmnopq...|   x|\n"
        "+---+--------------------+----+\n"
        "only showing top 2 rows\n"
        "\n"
        "+---+--------------------------+----+\n"
        "|id |name                      |tag |\n"
        "+---+--------------------------+----+\n"
        "|1  |a                         |NULL|\n"
        "|2  |abcdefghijklmnopqrstuvwxyz|x   |\n"
        "+---+--------------------------+----+\n"
        "only showing top 2 rows\n"
        "\n"
        "-RECORD 0----\n"
        " id   | 1    \n"
        " name | a    \n"
        " tag  | NULL \n"
        "\n")


def test_show_group_by_example(spark, capsys):
    from spate.sql import functions as F
    (spark.range(10).withColumn("k", F.col("id") % 3).groupBy("k")
     .agg(F.sum("id").alias("s")).orderBy("k").show())
    assert out(capsys) == (
        "+---+---+\n"
        "|  k|  s|\n"
        "+---+---+\n"
        "|  0| 18|\n"
        "|  1| 12|\n"
        "|  2| 15|\n"
        "+---+---+\n"
        "\n")


def test_show_nested_values(spark, capsys):
    spark.sql("SELECT array(1, 2, 3) AS a, map('a', 1) AS m, named_struct('x', 1, 'y', 'z') AS s, "
              "CAST('AB' AS BINARY) AS b").show()
    assert out(capsys) == (
        "+---------+--------+------+-------+\n"
        "|        a|       m|     s|      b|\n"
        "+---------+--------+------+-------+\n"
        "|[1, 2, 3]|{a -> 1}|{1, z}|[41 42]|\n"
        "+---------+--------+------+-------+\n"
        "\n")


def test_show_empty(spark, capsys):
    spark.range(0).show()
    assert out(capsys) == "+---+\n| id|\n+---+\n+---+\n\n"


def test_show_string(people):
    assert people.showString(1) == (
        "+---+----+\n|age|name|\n+---+----+\n| 14| Tom|\n+---+----+\nonly showing top 1 row\n")


def test_print_schema(people, capsys):
    people.printSchema()
    assert out(capsys) == (
        "root\n"
        " |-- age: long (nullable = true)\n"
        " |-- name: string (nullable = true)\n"
        "\n")


def test_print_schema_nested(spark, capsys):
    df = spark.createDataFrame([], "a ARRAY<INT>, m MAP<STRING, DOUBLE>, s STRUCT<x: INT, y: STRING>")
    df.printSchema()
    assert out(capsys) == (
        "root\n"
        " |-- a: array (nullable = true)\n"
        " |    |-- element: integer (containsNull = true)\n"
        " |-- m: map (nullable = true)\n"
        " |    |-- key: string\n"
        " |    |-- value: double (valueContainsNull = true)\n"
        " |-- s: struct (nullable = true)\n"
        " |    |-- x: integer (nullable = true)\n"
        " |    |-- y: string (nullable = true)\n"
        "\n")


def test_describe_matches_pyspark_docs(spark, capsys):
    df = spark.createDataFrame([("Bob", 13, 40.3, 150.5), ("Alice", 12, 37.8, 142.3), ("Tom", 11, 44.1, 142.2)],
                               ["name", "age", "weight", "height"])
    df.describe(["age"]).show()
    # The docs' weight column (mean 40.733333333333334) depends on the order partial sums
    # are merged in; the other columns are exact.
    df.drop("weight").describe().show()
    assert out(capsys) == (
        "+-------+----+\n"
        "|summary| age|\n"
        "+-------+----+\n"
        "|  count|   3|\n"
        "|   mean|12.0|\n"
        "| stddev| 1.0|\n"
        "|    min|  11|\n"
        "|    max|  13|\n"
        "+-------+----+\n"
        "\n"
        "+-------+-----+----+-----------------+\n"
        "|summary| name| age|           height|\n"
        "+-------+-----+----+-----------------+\n"
        "|  count|    3|   3|                3|\n"
        "|   mean| NULL|12.0|            145.0|\n"
        "| stddev| NULL| 1.0|4.763402145525822|\n"
        "|    min|Alice|  11|            142.2|\n"
        "|    max|  Tom|  13|            150.5|\n"
        "+-------+-----+----+-----------------+\n"
        "\n")


def test_summary(spark, capsys):
    df = spark.createDataFrame([(i,) for i in range(1, 101)], ["v"])
    df.summary().show()
    assert out(capsys) == (
        "+-------+------------------+\n"
        "|summary|                 v|\n"
        "+-------+------------------+\n"
        "|  count|               100|\n"
        "|   mean|              50.5|\n"
        "| stddev|29.011491975882016|\n"
        "|    min|                 1|\n"
        "|    25%|                25|\n"
        "|    50%|                50|\n"
        "|    75%|                75|\n"
        "|    max|               100|\n"
        "+-------+------------------+\n"
        "\n")
