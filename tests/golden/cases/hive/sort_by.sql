-- database: dw
-- Hive SORT BY / CLUSTER BY keys sort the output like ORDER BY (per reducer): SORT, as an ORDER BY without LIMIT is.
CREATE TABLE src (k STRING, v BIGINT, ts BIGINT);
INSERT OVERWRITE TABLE dst SELECT k, v FROM src DISTRIBUTE BY k SORT BY ts;
INSERT OVERWRITE TABLE dst SELECT k, v FROM src CLUSTER BY k;
