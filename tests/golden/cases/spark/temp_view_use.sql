-- database: silver
-- A TEMPORARY view belongs to the session, not to a database: after USE it still resolves by its name.
USE bronze;
CREATE TABLE raw (a BIGINT, b STRING);
CREATE OR REPLACE TEMPORARY VIEW v AS SELECT a, upper(b) AS ub FROM raw WHERE a > 0;
INSERT INTO silver.t SELECT a, ub FROM v;
USE silver;
INSERT INTO silver.t SELECT a, ub FROM v;
