"""Join strategy hints: SQL /*+ BROADCAST(t) */ (BROADCASTJOIN, MAPJOIN, MERGE, SHUFFLE_HASH,
SHUFFLE_REPLICATE_NL, unknown hints and relations), DataFrame.hint and functions.broadcast give
the rows of the unhinted joins, for every join type; hint errors as Spark's. The plan each
hint selects (BroadcastHashJoin BuildLeft / BuildRight) is checked by the C++ tests
(api/join_hints_test.cc, exec/hash_join_test.cc)."""

from dsl import case, sql_case

L = "VALUES (1, 'a'), (2, 'b'), (2, 'b2'), (NULL, 'n'), (4, 'd') AS l(k, lv)"
R = "VALUES (2, 'x'), (2, 'x2'), (3, 'y'), (NULL, 'm'), (4, 'z') AS r(k, rv)"
NO_AUTO = {"spark.sql.autoBroadcastJoinThreshold": "-1"}

KINDS = ("JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "LEFT SEMI JOIN", "LEFT ANTI JOIN")
HINTS = ("BROADCAST(l)", "BROADCAST(r)", "BROADCASTJOIN(l, r)", "MAPJOIN(l)", "SHUFFLE_HASH(l)",
         "MERGE(r)", "SHUFFLE_REPLICATE_NL(l)")

for kind in KINDS:
    cols = "l.*" if "SEMI" in kind or "ANTI" in kind else "l.k AS lk, lv, r.k AS rk, rv"
    kname = kind.lower().replace(" ", "_")
    for hint in HINTS:
        hname = hint.lower().replace("(", "_").replace(")", "").replace(", ", "_")
        sql_case(f"sql_{kname}_{hname}",
                 f"SELECT /*+ {hint} */ {cols} FROM {L} {kind} {R} ON l.k = r.k", conf=NO_AUTO)
    sql_case(f"sql_{kname}_broadcast_l_residual",
             f"SELECT /*+ BROADCAST(l) */ {cols} FROM {L} {kind} {R} ON l.k = r.k AND rv <> 'x2'",
             conf=NO_AUTO)
    sql_case(f"sql_{kname}_broadcast_l_auto",
             f"SELECT /*+ BROADCAST(l) */ {cols} FROM {L} {kind} {R} ON l.k = r.k")

sql_case("sql_cross_join_broadcast_l", f"SELECT /*+ BROADCAST(l) */ * FROM {L} CROSS JOIN {R}")
sql_case("sql_non_equi_right_join_broadcast_l",
         f"SELECT /*+ BROADCAST(l) */ lv, rv FROM {L} RIGHT JOIN {R} ON l.k < r.k")
sql_case("sql_unknown_hint", f"SELECT /*+ FOO(l) */ lv, rv FROM {L} RIGHT JOIN {R} ON l.k = r.k")
sql_case("sql_unknown_relation",
         f"SELECT /*+ BROADCAST(nope) */ lv, rv FROM {L} RIGHT JOIN {R} ON l.k = r.k")
sql_case("sql_hint_parameter_not_a_name",
         f"SELECT /*+ BROADCAST(1) */ lv, rv FROM {L} RIGHT JOIN {R} ON l.k = r.k")
sql_case("sql_hint_string_parameter",
         f"SELECT /*+ BROADCAST('l') */ lv, rv FROM {L} RIGHT JOIN {R} ON l.k = r.k")
sql_case("sql_hint_lower_case", f"select /*+ broadcast(L) */ lv, rv FROM {L} RIGHT JOIN {R} ON l.k = r.k")
sql_case("sql_two_hint_blocks",
         f"SELECT /*+ BROADCAST(l) */ /*+ MERGE(r) */ lv, rv FROM {L} RIGHT JOIN {R} ON l.k = r.k")
sql_case("sql_overridden_hint",
         f"SELECT /*+ SHUFFLE_HASH(l), BROADCAST(l) */ lv, rv FROM {L} RIGHT JOIN {R} ON l.k = r.k")
sql_case("sql_hint_misplaced", f"SELECT lv, rv FROM {L} JOIN {R} /*+ BROADCAST(l) */ ON l.k = r.k")
sql_case("sql_hint_unclosed", f"SELECT /*+ BROADCAST(l) lv FROM {L}")
sql_case("sql_hint_without_from", "SELECT /*+ BROADCAST(t) */ 1 AS one")
sql_case("sql_hint_in_subquery",
         f"SELECT x.lv, rv FROM (SELECT /*+ BROADCAST(l) */ * FROM {L} WHERE l.k > 1) x "
         f"RIGHT JOIN {R} ON x.k = r.k", conf=NO_AUTO)
sql_case("sql_hint_subquery_alias",
         f"SELECT /*+ BROADCAST(x) */ x.lv, rv FROM (SELECT * FROM {L} WHERE l.k > 1) x "
         f"RIGHT JOIN {R} ON x.k = r.k", conf=NO_AUTO)
sql_case("sql_hint_cte",
         f"WITH x AS (SELECT * FROM {L}) SELECT /*+ BROADCAST(x) */ lv, rv FROM x "
         f"RIGHT JOIN {R} ON x.k = r.k", conf=NO_AUTO)
sql_case("sql_hint_three_way",
         f"SELECT /*+ BROADCAST(l), BROADCAST(t) */ l.k, lv, rv, t.n FROM {L} RIGHT JOIN {R} "
         "ON l.k = r.k RIGHT JOIN VALUES (2, 20), (3, 30), (5, 50) AS t(k, n) ON t.k = r.k",
         conf=NO_AUTO)
sql_case("sql_hint_order_by",
         f"SELECT /*+ BROADCAST(l) */ lv, rv FROM {L} RIGHT JOIN {R} ON l.k = r.k "
         "ORDER BY rv, lv", conf=NO_AUTO)
sql_case("sql_hint_group_by",
         f"SELECT /*+ MAPJOIN(l) */ r.k, count(lv) AS n FROM {L} RIGHT JOIN {R} ON l.k = r.k "
         "GROUP BY r.k", conf=NO_AUTO)


def _frames(s):
    left = s.spark.createDataFrame([(1, "a"), (2, "b"), (2, "b2"), (None, "n"), (4, "d")],
                                   "k INT, lv STRING")
    right = s.spark.createDataFrame([(2, "x"), (2, "x2"), (3, "y"), (None, "m"), (4, "z")],
                                    "k INT, rv STRING")
    return left, right


def _df_cases(how):
    def broadcast_left(s):
        F = s.F
        left, right = _frames(s)
        return F.broadcast(left).join(right, "k", how)
    broadcast_left.__name__ = f"df_broadcast_left_{how}"
    case(broadcast_left, conf=NO_AUTO)

    def broadcast_right(s):
        F = s.F
        left, right = _frames(s)
        return left.join(F.broadcast(right), left.k == right.k, how)
    broadcast_right.__name__ = f"df_broadcast_right_{how}"
    case(broadcast_right, conf=NO_AUTO)

    def hint_both(s):
        left, right = _frames(s)
        return left.hint("mapjoin").join(right.hint("BROADCASTJOIN"), "k", how)
    hint_both.__name__ = f"df_hint_both_{how}"
    case(hint_both, conf=NO_AUTO)


for how in ("inner", "left", "right", "full", "left_semi", "left_anti", "cross"):
    _df_cases(how)


@case(conf=NO_AUTO)
def df_hint_through_filter_and_aggregate(s):
    left, right = _frames(s)
    small = left.hint("broadcast").filter("k > 1").groupBy("k").count()
    return small.join(right, "k", "right")


@case(conf=NO_AUTO)
def df_hint_named_relation(s):
    left, right = _frames(s)
    left.createOrReplaceTempView("hint_l")
    return s.spark.table("hint_l").join(right, "k", "right").hint("broadcast", "hint_l")


@case(conf=NO_AUTO)
def df_hint_alias(s):
    F = s.F
    left, right = _frames(s)
    a = F.broadcast(left).alias("a")
    return a.join(right.alias("b"), F.col("a.k") == F.col("b.k"), "right").select("a.lv", "b.rv")


@case(conf=NO_AUTO)
def df_hint_merge_and_shuffle_hash(s):
    left, right = _frames(s)
    return left.hint("merge").join(right.hint("shuffle_hash"), "k", "full")


@case
def df_hint_unknown(s):
    left, right = _frames(s)
    return left.hint("no_such_hint").join(right, "k", "right")


@case
def df_hint_number_parameter(s):
    left, right = _frames(s)
    return left.hint("broadcast", 1.5).join(right, "k")


@case
def df_hint_list_parameter(s):
    left, right = _frames(s)
    return left.hint("broadcast", [1, 2]).join(right, "k")


@case
def df_hint_bad_name_type(s):
    left, _ = _frames(s)
    return left.hint(1)


@case
def df_broadcast_self_join(s):
    F = s.F
    left, _ = _frames(s)
    a = left.alias("a")
    b = F.broadcast(left.alias("b"))
    return a.join(b, F.col("a.k") == F.col("b.k"), "right").select("a.lv", "b.lv")
