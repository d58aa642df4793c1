-- database: db
-- Broken statements do not stop the others; their diagnostics are part of the expectation.
INSERT INTO t1 SELECT a FROM s1;
INSERT INTO t2 SELEC a FROM s1;
INSERT INTO t3 SELECT a, FROM s1 WHERE;
INSERT INTO t4 SELECT (a + FROM s1;
INSERT INTO t5 SELECT b FROM s1;
SHOW TABLES;
DELETE FROM t1 WHERE a = 1;
UPDATE t1 SET a = 2;
SELECT * FROM t1;
USE other_db;
INSERT INTO t6 SELECT c FROM s1;
