-- database: analytics
-- Issue 19: a Snowflake procedure in $$ … $$, lateral column aliases, UPDATE … FROM.
CREATE OR REPLACE PROCEDURE load_lines()
RETURNS STRING
LANGUAGE SQL
AS
$$
BEGIN
  INSERT INTO lines_net SELECT price * qty AS gross, gross - discount AS net FROM lines;
  EXECUTE IMMEDIATE 'TRUNCATE lines';
  RETURN 'ok';
END;
$$;
UPDATE lines_net SET net = s.net FROM staged s WHERE lines_net.gross = s.gross;
