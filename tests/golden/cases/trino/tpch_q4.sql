-- database: tpch
-- TPC-H query 4: EXISTS (SELECT * ...) compares only the correlated columns (finding F08).
-- tpch-q4 (from ../shared/corpus/insert_tpch.sql, target renamed)
INSERT INTO rpt_tpch_q4
select
        o_orderpriority,
        count(*) as order_count
from
        orders
where
        CAST(o_orderdate AS DATE) >= date '1993-07-01'
        and CAST(o_orderdate AS DATE) < date '1993-07-01' + interval '3' month
        and exists (
                select
                        *
                from
                        lineitem
                where
                        l_orderkey = o_orderkey
                        and l_commitdate < l_receiptdate
        )
group by
        o_orderpriority
order by
        o_orderpriority;
