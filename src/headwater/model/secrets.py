"""Secrets kept out of everything headwater stores, sends or logs: property maps and SQL text.

Two rules decide what a secret is. **Property names** — the keys of property maps, of URL
queries, of ``key=value`` pairs inside values and of quoted names in SQL text (``WITH
('aws_key'='…')``, ``S3("s3.secret_key" = "…")``) — are sensitive by the wide rule
(``is_sensitive``): a name that contains ``pass``, ``pwd``, ``secret``, ``token``, ``credential``,
``hidden``, ``private``, ``keytab``, ``jaas``, ``authorization``/``authorisation`` or
``signature``; or has ``auth``, ``sas``, ``sig``, ``cred``, ``creds`` or ``pw`` as a part between
``.``, ``_``, ``-`` or the ends; or ends in ``key`` or ``keys`` (``aws_key``, ``openai_key``,
``primary_key`` too: a property that may hold a key is masked; ``key.format`` is a namespace, not a
key); or is a sensitive column name.
Values are also masked where they carry a secret whatever their key (``mask_value``): a URL's
``user:password@``, ``password=…`` pairs in URL queries and in ``jdbc.properties``-style strings,
and ``Bearer``/``Basic`` credentials.

**Column names** — an unquoted name in SQL text that a literal is compared with or given to
(``o_orderkey = '5'``) — are sensitive by the narrow rule (``is_sensitive_column``): the same words
as words, not as any part of a word (``db_pass``, ``userpass``, ``user_pwd``, ``dbAuth``, but not
``passenger_name``, ``passport_no``, ``compass`` or ``secretary``), and a secret *key*. For keys the
name is cut into words at every character that is not a letter or digit and at camelCase
(``accessKeyId`` → access, key, id; ``APIKey`` → api, key). A word ``key`` (or ``keys``) is
sensitive when it is the name's only word (``key``) or follows a word of ``SECRET_KEY_QUALIFIERS``
(``api_key``, ``accessKey``); so is one word made of such a qualifier and ``key`` (``apikey``,
``ACCESSKEY``). Any other key column is an identifier, not a secret: ``o_orderkey``,
``customer_key``, ``sort_key``, ``primary_key``, ``partition_keys``. Names that are not ASCII keep
the older rule (``key`` or ``keys`` as any part, or a name ending in ``key``).

>>> redact({"uri": "thrift://h:9083", "s3.secret_key": "x", "Password": "p", "hive.metastore.token": "t",
...         "access_key": "a", "primary_key": "id", "keyspace": "k", "hidden.prop": "h"})
{'uri': 'thrift://h:9083', 'keyspace': 'k'}
>>> redact({"url": "jdbc:mysql://etl:hunter2@db:3306/sales", "jdbc.properties": "user=etl;password=hunter2"})
{'url': 'jdbc:mysql://etl:***@db:3306/sales', 'jdbc.properties': 'user=etl;password=***'}
>>> redact_sql("CREATE TABLE fl (a INT) WITH ('connector'='jdbc', 'password'='hunter2')")
"CREATE TABLE fl (a INT) WITH ('connector'='jdbc', 'password'='***')"
>>> redact_sql('SELECT * FROM S3("uri" = "s3://b/f", "s3.secret_key" = "wJalr")', "doris")
'SELECT * FROM S3("uri" = "s3://b/f", "s3.secret_key" = "***")'
>>> redact_sql("SELECT o_orderkey FROM orders WHERE o_orderkey = '5' AND api_key = 'k1'")
"SELECT o_orderkey FROM orders WHERE o_orderkey = '5' AND api_key = '***'"
>>> redact_sql("CREATE TABLE t WITH ('aws_key'='AKIA1', 'sort_key'='id') AS SELECT a FROM s WHERE sort_key = 'z'")
"CREATE TABLE t WITH ('aws_key'='***', 'sort_key'='***') AS SELECT a FROM s WHERE sort_key = 'z'"
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import logging
import re
import weakref
from collections.abc import Mapping
from typing import Any

from sqlglot.errors import TokenError
from sqlglot.tokens import Token, TokenType

from headwater.model.event import LineageInfo

MASK = "***"

_SENSITIVE = re.compile(
    r"pass(word|wd)?|pwd|secret|token|credential|hidden|private|keytab|jaas|authori[sz]ation|signature"
    r"|(^|[._\-])(auth|sas|sig|creds?|pw)($|[._\-])",
    re.IGNORECASE,
)
# the narrow rule's words for ASCII column names (``_secret_word``): these anywhere in the name …
_COLUMN_SENSITIVE = re.compile(
    r"passw(or)?ds?|passphrase|passcode|pwd|secret(?!ar)|token|credential|hidden|private|keytab|jaas"
    r"|authori[sz]ation|signature",
    re.IGNORECASE,
)
# … or one of these as a word of its own (``db_pass``, ``dbAuth``), or a word ending in ``pass``
# (``userpass``) but for the English words that do (``passenger``, ``compass``, ``bypass`` are not secrets)
_COLUMN_WORDS = frozenset(("pass", "pw", "auth", "sas", "sig"))
_CRED = re.compile(r"(^|[._\-])creds?($|[._\-])", re.IGNORECASE)  # between separators only (not ``credit``)
_NOT_A_PASS = frozenset(("bypass", "compass", "encompass", "overpass", "underpass", "surpass", "trespass"))
_WIDE_KEY = re.compile(r"keys?$", re.IGNORECASE)  # the key part of the wide rule
_ANY_KEY = re.compile(r"(^|[._\-])keys?($|[._\-])|key$", re.IGNORECASE)  # the key part for names not ASCII
_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")  # an ASCII name's words, camelCase cut
_QUALIFIER_WORDS = (
    "api access secret private account encryption decryption master signing client ssh auth sas shared"
    " storage app consumer license crypto aes hmac rsa pgp gpg kms subscription write ingest ingestion"
    " instrumentation developer dev ssl tls root"
)
SECRET_KEY_QUALIFIERS = frozenset(_QUALIFIER_WORDS.split())
"""The words that make a following ``key`` word a secret (``api_key``, ``accessKey``, ``account.key``)."""
_KEY_QUALIFIERS = tuple(sorted(SECRET_KEY_QUALIFIERS))
# the hint words of ``may_hold_secret``'s ASCII path; ``key`` is tested there by ``_key_hinted`` and
# ``cred`` by ``_cred_hinted``
_HINT_WORDS = ("pass", "secret", "token", "hidden", "private", "keytab", "jaas", "auth", "sas", "sig")
_HINT_WORDS += ("pw", "identified", "://", "bearer", "basic")  # ``pw`` finds ``pwd`` too: no search of its own
_HINT = re.compile("|".join(re.escape(w) for w in (*_HINT_WORDS, "cred", "key")), re.IGNORECASE)
# how ``may_hold_secret`` searches them: ``keytab`` only where ``key`` is (it holds one), and a word
# with a letter rare in SQL only where that letter is (one ``memchr``, about a fiftieth of a search)
_GUARDED = (("j", "jaas"), (":", "://"), ("v", "private"))
_UNGUARDED = tuple(w for w in _HINT_WORDS if w not in ("keytab", *(w for _, w in _GUARDED)))


def may_hold_secret(text: str) -> bool:
    """Cheap test before tokenizing: False when ``text`` holds nothing to redact. ASCII text is
    searched word by word in its lower case (a regular expression costs as much as parsing on a 2 kB
    statement) for ``_HINT_WORDS``, and each ``key`` and ``cred`` in it is looked at (``_key_hinted``,
    ``_cred_hinted``): a key column such as ``o_orderkey`` or ``customer_key`` is no hint, nor is
    ``credit`` in text without a ``key`` (with one, any ``cred`` is a hint, as before: a name such as
    ``credit_key`` may be masked by the keys' wide rule). Other text is searched by ``_HINT``, ``key``
    and ``cred`` included, which folds case as the other patterns here do.

    >>> may_hold_secret("SELECT a FROM s"), may_hold_secret("x = 'PassWord'"), may_hold_secret("\\u017fecret")  # long s
    (False, True, True)
    >>> may_hold_secret("SELECT o_orderkey, customer_key FROM t"), may_hold_secret("WHERE t.apiKey = 'k'")
    (False, True)
    """
    if text.isascii():
        low = text.lower()
        if _hint_word_in(low):
            return True
        if "key" in low:
            return "keytab" in low or _key_hinted(low) or "cred" in low
        return "cred" in low and _cred_hinted(low)
    if "\u0130" in text or "\u0131" in text or "\u017f" in text or "\u212a" in text:
        return _HINT.search(text) is not None
    # none of U+0130, U+0131, U+017F, U+212A (dotted I, dotless i, long s, Kelvin K), the only letters
    # not ASCII that ``_HINT`` takes for ASCII ones (and U+0130 and U+212A the only ones whose lower case
    # holds one): ``_HINT``'s answer, from the lower case
    low = text.lower()
    return _hint_word_in(low) or "key" in low or "cred" in low  # ``keytab`` holds ``key``


def _hint_word_in(low: str) -> bool:
    """Whether a hint word but ``keytab`` (``_HINT_WORDS``) is in the lower-case ``low``."""
    for w in _UNGUARDED:  # loops, not ``any`` over a generator: this runs for every statement and event
        if w in low:
            return True
    return any(c in low and w in low for c, w in _GUARDED)


def _cred_hinted(low: str) -> bool:
    """Whether a ``cred`` in the lower-case ASCII ``low`` may be part of a sensitive name: the start of
    ``credential``, or ``cred`` / ``creds`` with no letter or digit after it (the rule's part between
    separators). ``credit`` (``cd_credit_rating``) is no hint.

    >>> names = ("cd_credit_rating", "credential", "creds", "db.cred = 1", "my_cred", "cred-x", "credsx")
    >>> [t for t in names if _cred_hinted(t)]
    ['credential', 'creds', 'db.cred = 1', 'my_cred', 'cred-x']
    """
    n = len(low)
    p = low.find("cred")
    while p >= 0:
        e = p + 4
        if low.startswith("ential", e):
            return True
        if e < n and low[e] == "s":
            e += 1
        if e == n or not low[e].isalnum():
            return True
        p = low.find("cred", p + 4)
    return False


def _key_hinted(low: str) -> bool:
    """Whether a ``key`` in the lower-case ASCII ``low`` may be a sensitive key word (``is_sensitive_column``):
    one whose letters before it, past any digits and separators, end with a qualifier (``apikey``,
    ``accessKey``, ``account.key``, ``aes256_key``), or that may stand alone: no letter before it
    past any ``_`` and digits (not the last word of ``customer_key``; ``7key`` is tokenized as 7 and
    ``key``), no letter or digit after ``key``/``keys`` and any ``_``. Camel case is gone in ``low``,
    so a run of letters is tested for ending with a qualifier: a superset of the rule.

    >>> [t for t in ("o_orderkey", "customer_key", "sort_keys", "monkey", "key_id", "key.format") if _key_hinted(t)]
    ['key.format']
    >>> [t for t in ("key", "t.key", "_key_", "7key", "myapikey", "azure.account.key", "access-key") if _key_hinted(t)]
    ['key', 't.key', '_key_', '7key', 'myapikey', 'azure.account.key', 'access-key']
    """
    n = len(low)
    p = low.find("key")
    while p >= 0:
        if p and low[p - 1].isalpha():  # one word with key (``orderkey``, ``apikey``) or camelCase
            if low.endswith(_KEY_QUALIFIERS, 0, p):  # the run of letters ends with a qualifier
                return True
        else:
            i = p
            while i > 0 and not low[i - 1].isalpha():
                i -= 1
            if i and low.endswith(_KEY_QUALIFIERS, 0, i):  # a qualifier, then digits or separators
                return True
            u = p  # past ``_`` and digits: a tokenizer reads ``7key`` and ``7_key`` as 7 and a name
            while u > 0 and (low[u - 1] == "_" or low[u - 1].isdigit()):
                u -= 1
            e = p + 4 if low.startswith("keys", p) else p + 3
            while e < n and low[e] == "_":
                e += 1
            if (u == 0 or not low[u - 1].isalpha()) and (e == n or not low[e].isalnum()):
                return True  # alone (``key``, ``t.key``, ``'key'``): not ``customer_key``, ``key_id``, ``monkey``
        if _property_key(low, p):
            return True
        p = low.find("key", p + 3)
    return False


def _property_key(low: str, p: int) -> bool:
    """Whether the name around the ``key`` at ``p`` of ``low`` may be a property's name that the wide
    rule masks: quoted (``'aws_key'``) or followed by ``=`` (``aws_key=…`` in a URL or a value).

    >>> names = ("'aws_key'", "x?openai_key=1", "'key.format'", "aws_key = 1", "'recordkey.field'")
    >>> [t for t in names if _property_key(t, t.find("key"))]
    ["'aws_key'", 'x?openai_key=1']
    """
    n = len(low)
    s = p
    while s > 0 and (low[s - 1].isalnum() or low[s - 1] in "_.-"):
        s -= 1
    e = p + 3
    while e < n and (low[e].isalnum() or low[e] in "_.-"):
        e += 1
    quoted = (s > 0 and low[s - 1] in "'\"`") or (e < n and low[e] in "'\"`=")
    return quoted and _WIDE_KEY.search(low[s:e]) is not None


_URL_USERINFO = re.compile(r"(?i)(\b[a-z][a-z0-9+.\-]*://[^\s/:@'\"`]*:)([^\s@/'\"`]+)(@)")
_PAIR = re.compile(r"(?<![\w.\-])([\w.\-]+)(\s*=\s*)([^&;,\s'\"`)]+)")
_SCHEME_CREDENTIAL = re.compile(r"(?i)(^['\"`]?\s*|authorization:\s*)(bearer|basic)(\s+)([A-Za-z0-9._~+/=\-]{8,})")
_STRINGS = {TokenType.STRING, TokenType.NATIONAL_STRING, TokenType.RAW_STRING, TokenType.HEREDOC_STRING}
_NAMES = {TokenType.STRING, TokenType.IDENTIFIER, TokenType.VAR}
# what compares a column with a literal, either way round (``password != '…'``, ``'…' = password``)
_COMPARE = {
    getattr(TokenType, n)
    for n in ("EQ", "NEQ", "NULLSAFE_EQ", "LIKE", "ILIKE", "RLIKE", "GLOB", "SIMILAR_TO", "GT", "GTE", "LT", "LTE")
    if hasattr(TokenType, n)
}
_BARE_NAMES = {TokenType.IDENTIFIER, TokenType.VAR}


def is_sensitive(key: str) -> bool:
    """True for property names that may hold a secret (passwords, keys, tokens, credentials,
    signatures, auth): the wide rule of the module's docstring, for property maps, URL queries and
    quoted names in SQL.

    >>> [k for k in ("s3.secret_key", "header.Authorization", "sas_token", "sig", "creds", "db.pw",
    ...              "author", "keyspace", "primary", "signature_version") if is_sensitive(k)]
    ['s3.secret_key', 'header.Authorization', 'sas_token', 'sig', 'creds', 'db.pw', 'signature_version']
    >>> [k for k in ("key", "aws_key", "openai_key", "key.format", "o_orderkey", "recordkey.field") if is_sensitive(k)]
    ['key', 'aws_key', 'openai_key', 'o_orderkey']
    """
    return _SENSITIVE.search(key) is not None or _WIDE_KEY.search(key) is not None or is_sensitive_column(key)


def is_sensitive_column(name: str) -> bool:
    """True for a column name whose literals may be secrets: the narrow rule of the module's
    docstring, for unquoted names in SQL text (a key column is an identifier, not a secret).

    >>> [k for k in ("key", "api_key", "apikey", "accessKey", "password", "o_orderkey", "customer_key",
    ...              "sort_key", "primaryKey", "aws_key") if is_sensitive_column(k)]
    ['key', 'api_key', 'apikey', 'accessKey', 'password']
    >>> [k for k in ("passenger_name", "passport_no", "compass", "secretary", "db_pass", "userpass", "dbAuth",
    ...              "user_pwd", "userPassword", "author") if is_sensitive_column(k)]
    ['db_pass', 'userpass', 'dbAuth', 'user_pwd', 'userPassword']
    """
    if not name.isascii():
        return _SENSITIVE.search(name) is not None or _ANY_KEY.search(name) is not None
    if _COLUMN_SENSITIVE.search(name) or _CRED.search(name) or _secret_word(name):
        return True
    return "key" in name.lower() and _secret_key(name)


def _secret_word(name: str) -> bool:
    """Whether the ASCII ``name`` has a word of ``_COLUMN_WORDS`` or one ending in ``pass`` (not an
    English word such as ``compass``); words are cut as for keys."""
    for w in _WORD.findall(name):
        w = w.lower()
        if w in _COLUMN_WORDS or (w.endswith("pass") and w not in _NOT_A_PASS):
            return True
    return False


def _secret_key(name: str) -> bool:
    """Whether the ASCII ``name`` holds a secret key word (the module's rule; digits are words of
    their own, passed over when looking for a qualifier: ``aes256_key``, ``api_key_2``)."""
    words = [w.lower() for w in _WORD.findall(name)]
    before = ""  # the last word before this one that is not digits
    for w in words:
        if w in ("key", "keys"):
            if len(words) == 1 or before in SECRET_KEY_QUALIFIERS:
                return True
        elif (w.endswith("keys") and w[:-4] in SECRET_KEY_QUALIFIERS) or (
            w.endswith("key") and w[:-3] in SECRET_KEY_QUALIFIERS
        ):
            return True
        if not w.isdigit():
            before = w
    return False


def mask_value(value: str) -> str:
    """``value`` with the secrets it carries whatever its key masked: URL passwords, sensitive
    ``key=value`` pairs (URL queries, ``jdbc.properties``), ``Bearer``/``Basic`` credentials.

    >>> mask_value("postgresql://u:pw@h/db?sslmode=require&password=x")
    'postgresql://u:***@h/db?sslmode=require&password=***'
    >>> mask_value("Bearer eyJhbGciOiJIUzI1NiJ9"), mask_value("Basic ZXRsOmh1bnRlcjI="), mask_value("Basic Membership")
    ('Bearer ***', 'Basic ***', 'Basic Membership')
    >>> mask_value("https://acct.blob.core.windows.net/c?sv=2022-11-02&sig=AbC%2Bd")
    'https://acct.blob.core.windows.net/c?sv=2022-11-02&sig=***'
    """
    if not may_hold_secret(value):
        return value
    value = _URL_USERINFO.sub(rf"\1{MASK}\3", value)
    value = _PAIR.sub(lambda m: f"{m[1]}{m[2]}{MASK}" if is_sensitive(m[1]) else m[0], value)
    return _SCHEME_CREDENTIAL.sub(_credential, value)


def _credential(m: re.Match[str]) -> str:
    """An ``Authorization`` value's credential masked: any ``Bearer`` token, a ``Basic`` one that is
    base64 of ``user:password`` (not the words of ``'Basic Membership'``)."""
    if m[2].lower() == "basic":
        try:
            if b":" not in base64.b64decode(m[4], validate=True):
                return m[0]
        except (binascii.Error, ValueError):
            return m[0]
    return f"{m[1]}{m[2]}{m[3]}{MASK}"


def redact(props: Mapping[str, str]) -> dict[str, str]:
    """The properties without the sensitive ones (matched case-insensitively on the key), and the
    secrets inside the other values masked (``mask_value``)."""
    return {k: mask_value(v) if isinstance(v, str) else v for k, v in props.items() if not is_sensitive(k)}


def redact_event(event: LineageInfo, dialect: str = "") -> LineageInfo:
    """The event with its statement text and its expressions redacted (``redact_sql``): a filter
    ``conn = 'postgresql://u:pw@h'`` keeps its lineage, not the password. Extraction applies it to
    every event it makes, the store to every event it is given (a producer may not redact). An
    event without secrets is returned as it is. The result is marked (``is_redacted``)."""
    out = redacted(event, dialect)
    mark_redacted(out)
    return out


def redacted(event: LineageInfo, dialect: str = "") -> LineageInfo:
    """``redact_event`` without the mark (the store's own pass: nothing reads its mark).

    The statement is tested alone, through ``redact_sql``'s memo: extraction has just redacted the
    same text for its piece (``redact_piece``), so it is not scanned again; the expressions are
    tested once, joined (``_expressions_hinted``). No test of the statement and the expressions
    joined comes first: each answer below is what such a test only let through."""
    ctx = event.context
    sql = redact_sql(ctx.sql, dialect) if isinstance(ctx.sql, str) else ctx.sql
    changed: dict[str, Any] = {}
    if _expressions_hinted(event):
        lists = {
            name: _redacted_expressions(getattr(event, name), dialect)
            for name in ("direct", "dataset_indirect", "output_indirect")
        }
        changed = {name: items for name, items in lists.items() if items is not getattr(event, name)}
    props = ctx.external_catalog_properties
    clean = _redacted_properties(props)
    if sql != ctx.sql or clean is not props:
        changed["context"] = dataclasses.replace(ctx, sql=sql, external_catalog_properties=clean)
    return dataclasses.replace(event, **changed) if changed else event  # type: ignore[arg-type]


def _redacted_properties(props: Mapping[str, str]) -> Mapping[str, str]:
    """``redact(props)``, or ``props`` itself when it holds nothing to redact (tested once, joined).

    >>> _redacted_properties({"password": "pw", "uri": "jdbc:mysql://u:pw@h/db", "k": "v"})
    {'uri': 'jdbc:mysql://u:***@h/db', 'k': 'v'}
    """
    if not props or not may_hold_secret("\x00".join([*props, *(v for v in props.values() if isinstance(v, str))])):
        return props
    clean = redact(props)
    return props if clean == props else clean


_REDACTED: weakref.WeakValueDictionary[int, LineageInfo] = weakref.WeakValueDictionary()
"""The events ``redact_event`` returned, by ``id()``, as long as they live (an entry goes with its
object, so an ``id`` reused by a later object is never taken for it)."""


def mark_redacted(event: LineageInfo) -> None:
    """Mark ``event`` as ``redact_event``'s answer: a copy of one, made by this program (the pipe to
    ``ingest``'s recording process), which the store need not scan again."""
    _REDACTED[id(event)] = event


def is_redacted(event: LineageInfo) -> bool:
    """Whether ``event`` is the very object (in this process) that ``redact_event`` returned: then
    it holds no secret for the store to mask. Only identity counts: an equal event decoded from
    JSON, sent by a producer or copied with ``dataclasses.replace`` is not marked.

    >>> from headwater.model.event import *
    >>> t = TableRef("internal", "db", "t")
    >>> ctx = QueryContext(SourceCommand.INSERT_INTO, "q1", "INSERT INTO t SELECT 'pg://u:pw@h'")
    >>> e = LineageInfo("id", SourceCommand.INSERT_INTO, Target(t, ()), (), (), (), (), ctx)
    >>> r = redact_event(e)
    >>> is_redacted(e), is_redacted(r), r.context.sql
    (False, True, "INSERT INTO t SELECT 'pg://u:***@h'")
    """
    return _REDACTED.get(id(event)) is event


def _expressions_hinted(event: LineageInfo) -> bool:
    """Whether any expression of the event may hold a secret (``may_hold_secret``), tested once on all of them
    joined: a hint word holds no NUL, so it is found in the joined text only inside one expression.

    >>> from headwater.model.event import *
    >>> t = TableRef("internal", "db", "t")
    >>> ctx = QueryContext(SourceCommand.INSERT_INTO, "q1", "INSERT INTO t SELECT a FROM s")
    >>> d = DirectLineage("a", "s.a", DirectType.IDENTITY, Origin.COLUMN, ())
    >>> e = LineageInfo("id", SourceCommand.INSERT_INTO, Target(t, (Field("a"),)), (), (d,), (), (), ctx)
    >>> url = dataclasses.replace(d, expression="s.a = 'pg://u:pw@h'")
    >>> _expressions_hinted(e), _expressions_hinted(dataclasses.replace(e, direct=(d, url)))
    (False, True)
    """
    texts = [
        x
        for items in (event.direct, event.dataset_indirect, event.output_indirect)
        for item in items
        if isinstance(x := getattr(item, "expression", None), str)
    ]
    return bool(texts) and may_hold_secret("\x00".join(texts))


def _redacted_expressions(items: tuple[Any, ...], dialect: str) -> tuple[Any, ...]:
    out = []
    for item in items:
        expression = getattr(item, "expression", None)
        if isinstance(expression, str) and may_hold_secret(expression):
            redacted = redact_sql(expression, dialect)
            if redacted != expression:
                item = dataclasses.replace(item, expression=redacted)
        out.append(item)
    return items if all(a is b for a, b in zip(out, items, strict=True)) else tuple(out)


def redact_run_event(event: Mapping[str, Any]) -> Mapping[str, Any]:
    """An OpenLineage RunEvent with its secrets masked (``redact_document``): its SQL job facet's query
    redacted as SQL, its ``sourceCode`` by pattern, any ``dataSource.uri``'s password, any
    ``spark_properties`` value of a sensitive key. The event itself when nothing changes.

    >>> e = {"job": {"facets": {"sql": {"query": "SELECT a FROM t WHERE password = 'pw'"}}},
    ...      "inputs": [{"facets": {"dataSource": {"uri": "postgres://etl:pw@db:5432"}}}]}
    >>> r = redact_run_event(e)
    >>> r["job"]["facets"]["sql"]["query"], r["inputs"][0]["facets"]["dataSource"]["uri"]
    ("SELECT a FROM t WHERE password = '***'", 'postgres://etl:***@db:5432')
    """
    return redact_document(event)  # type: ignore[no-any-return]


_SQL_KEYS = frozenset(("query", "sql", "transform_expression"))
"""Keys of a document whose strings are SQL text (``redact_sql``); ``sourceCode`` and
``description`` ones are free text that may quote code (``redact_text``)."""
_TEXT_KEYS = frozenset(("sourcecode", "description", "transformationdescription"))


def redact_document(value: Any, key: str = "") -> Any:
    """A parsed JSON document (an OpenLineage event, a ``record_lineage`` call) with its secrets
    masked, for storing it: a string under a sensitive key (``is_sensitive``) is the mask; SQL and
    code under ``_SQL_KEYS`` / ``_TEXT_KEYS`` are redacted as such; any other string has
    ``mask_value``'s forms masked (a URL's password, ``password=…`` pairs, ``Bearer`` credentials).
    Objects and arrays are copied only where something changes (the same object otherwise).

    >>> redact_document({"metadata": {"db_password": "pw", "conn": "jdbc:postgresql://u:pw@h/db", "n": 1}})
    {'metadata': {'db_password': '***', 'conn': 'jdbc:postgresql://u:***@h/db', 'n': 1}}
    """
    if isinstance(value, str):
        if not value:
            return value
        low = key.lower()
        if low in _SQL_KEYS:
            return redact_sql(value)
        if low in _TEXT_KEYS:
            return redact_text(value)
        if key and is_sensitive(key):
            return MASK
        if "@" in value or "=" in value or " " in value:  # mask_value's forms hold one of these
            return mask_value(value)
        return value
    if isinstance(value, Mapping):
        items = {k: redact_document(v, str(k)) for k, v in value.items()}
        return value if all(items[k] is v for k, v in value.items()) else items
    if isinstance(value, list):
        out = [redact_document(v, key) for v in value]
        return value if all(a is b for a, b in zip(out, value, strict=True)) else out
    return value


def _quoted_mask(raw: str) -> str:
    """A string literal's text with its content replaced by the mask, in the same quotes."""
    q = raw[-1] if raw[-1] in "'\"`" else "'"
    return f"{q}{MASK}{q}"


def _tokens(sql: str, dialect: str) -> list[Token]:
    from sqlglot.dialects.dialect import Dialect

    name = {"flink": "hive", "generic": "", "default": ""}.get(dialect, dialect)
    return Dialect.get_or_raise(name).tokenize(sql)


def redact_sql(sql: str, dialect: str = "") -> str:
    """``sql`` with secret-valued literals masked: the value of every key/value pair whose key is
    sensitive (``'password'='…'``, ``"s3.secret_key" = "…"``, ``password '…'``, ``IDENTIFIED BY
    '…'``), and the secrets inside any other string (``mask_value``). Everything else is kept as
    written, comments included (a URL's password in a comment is masked too).

    ``dialect`` is a sqlglot dialect name (or ``flink``), which decides how strings are quoted.
    Text the tokenizer cannot read is masked by pattern instead. The last few answers are kept:
    extraction redacts a statement's text for its piece, then the same text again in its event.

    >>> redact_sql("INSERT INTO t SELECT a FROM s WHERE note = 'password=abc;user=u'")
    "INSERT INTO t SELECT a FROM s WHERE note = 'password=***;user=u'"
    >>> redact_sql("CREATE USER etl IDENTIFIED BY 'hunter2'")
    "CREATE USER etl IDENTIFIED BY '***'"
    """
    key = (sql, dialect)
    out = _MEMO.get(key)
    if out is None:
        out = _redact_sql(sql, dialect)
        if len(_MEMO) >= _MEMO_SIZE:
            _MEMO.clear()
        _MEMO[key] = out
    return out


_MEMO: dict[tuple[str, str], str] = {}  # redact_sql's last answers
_MEMO_SIZE = 8


def _redact_sql(sql: str, dialect: str) -> str:
    if not may_hold_secret(sql):
        return sql
    try:
        tokens = _tokens(sql, dialect)
    except (TokenError, ValueError):
        return _redact_by_pattern(sql)
    out: list[str] = []
    done = 0  # sql[:done] is in out
    # only the gaps between tokens that hold a comment need redacting (a comment is kept as written,
    # its secrets masked by pattern): with none, a token left as it is needs no copy of its own, and a
    # statement of 3 million tokens (a 140 KB expression, 1,600 times) is copied in a few pieces
    commented = any(t.comments for t in tokens)

    def keep_until(pos: int) -> None:  # the text up to pos, its comments redacted by pattern
        nonlocal done
        gap = sql[done:pos]
        out.append(redact_text(gap) if commented and gap.strip() else gap)
        done = pos

    k = 0
    while k < len(tokens):
        t = tokens[k]
        tt = t.token_type
        quoted_value = tt is TokenType.IDENTIFIER and sql[t.start] in '"`'
        end = k
        raw: str | None = None  # the text of tokens[k : end + 1] when they are to be copied (or masked)
        if tt in _BARE_NAMES and k > 0 and _identified_by(tokens, k - 1) and not _names_string(tokens, k):
            # Oracle's IDENTIFIED BY hunter2, not MySQL's IDENTIFIED BY PASSWORD '*hash'
            raw = _quoted_mask(sql[t.start : t.end + 1]) if quoted_value else MASK
        elif tt in _STRINGS or (quoted_value and k > 0 and tokens[k - 1].token_type is TokenType.EQ):
            named = _key_before(tokens, k)
            key = named[0] if named is not None else None
            if tt in _STRINGS or key is not None:
                while end + 1 < len(tokens) and tokens[end + 1].token_type in _STRINGS:  # 'a' 'b': one string
                    end += 1
                raw = sql[t.start : tokens[end].end + 1]
                if named is not None and (is_sensitive(key) if named[1] else is_sensitive_column(key)):
                    raw = _quoted_mask(raw)
                elif tt in _STRINGS and is_sensitive_column(_name_after(tokens, end)):
                    raw = _quoted_mask(raw)  # ``'…' = password``, ``'…' AS db_password``
                elif tt in _STRINGS:
                    raw = mask_value(raw)
        if raw is None and commented:
            raw = sql[t.start : t.end + 1]  # copied on its own, so that only the gaps are redact_text's
        if raw is not None:
            keep_until(t.start)
            out.append(raw)
            done = tokens[end].end + 1
        k = end + 1
    keep_until(len(sql))
    return _URL_USERINFO.sub(rf"\1{MASK}\3", "".join(out))


def _identified_by(tokens: list[Token], j: int) -> bool:
    """True when ``tokens[j]`` ends the words before an account's password or its hash:
    ``IDENTIFIED BY``, ``IDENTIFIED WITH plugin BY`` or ``IDENTIFIED WITH plugin AS``."""
    word = tokens[j].text.upper()
    if word == "BY" and j > 0 and tokens[j - 1].text.upper() == "IDENTIFIED":
        return True
    return (
        word in ("BY", "AS")
        and j > 2
        and tokens[j - 2].text.upper() == "WITH"
        and tokens[j - 3].text.upper() == "IDENTIFIED"
    )


def _names_string(tokens: list[Token], k: int) -> bool:
    """True when the word ``tokens[k]`` is followed by a string, which it names."""
    return k + 1 < len(tokens) and tokens[k + 1].token_type in _STRINGS


def _key_before(tokens: list[Token], k: int) -> tuple[str, bool] | None:
    """The key a value at ``tokens[k]`` is given for: the name before it, with or without ``=``, and
    whether that name is written as a string (a property's name, ``'aws_key'``) rather than as a
    column's name (``aws_key``, ``"aws_key"``)."""
    j = k - 1
    listed = _listed_for(tokens, j)
    if listed is not None:
        return listed
    if j >= 0 and tokens[j].token_type in _COMPARE:
        j -= 1
        if j >= 0 and tokens[j].token_type is TokenType.NOT:  # NOT LIKE
            j -= 1
    if j < 0:
        return None
    prev = tokens[j]
    if _identified_by(tokens, j):
        return "password", False
    if prev.token_type is TokenType.L_PAREN and j > 0 and tokens[j - 1].text.upper() == "PASSWORD":
        return "password", False  # MySQL's PASSWORD('…') is given the password itself
    if prev.token_type in _NAMES or prev.text.replace("_", "").isalnum():
        return prev.text, prev.token_type in _STRINGS
    return None


def _listed_for(tokens: list[Token], j: int) -> tuple[str, bool] | None:
    """The column whose ``IN (…)`` list holds the literal after ``tokens[j]``, if it is one:
    ``password IN ('a', 'b')``, ``t.pwd NOT IN ('a')``."""
    while j >= 0 and (tokens[j].token_type is TokenType.COMMA or tokens[j].token_type in _STRINGS):
        j -= 1
    if j < 2 or tokens[j].token_type is not TokenType.L_PAREN or tokens[j - 1].token_type is not TokenType.IN:
        return None
    j -= 2
    if tokens[j].token_type is TokenType.NOT:
        j -= 1
    if j >= 0 and tokens[j].token_type in _BARE_NAMES:
        return tokens[j].text, False
    return None


def _name_after(tokens: list[Token], end: int) -> str:
    """The column a literal ending at ``tokens[end]`` is compared with or named as, when it comes after
    it (``'…' = t.password``, ``'…' AS db_password``, ``'…' db_password``); empty otherwise."""
    j = end + 1
    if j >= len(tokens):
        return ""
    tt = tokens[j].token_type
    if tt in _COMPARE or tt is TokenType.ALIAS:
        j += 1
    elif tt not in _BARE_NAMES:
        return ""
    while j + 2 < len(tokens) and tokens[j + 1].token_type is TokenType.DOT and tokens[j + 2].token_type in _BARE_NAMES:
        j += 2  # a qualified name: its last part
    return tokens[j].text if j < len(tokens) and tokens[j].token_type in _BARE_NAMES else ""


# a key, maybe quoted, then maybe '=', then a quoted value, whose closing quote may be cut off (a
# message quotes at most so many characters of a statement)
_QUOTED_PAIR = re.compile(r"""(['"`]?)([\w.\-]+)\1(\s*=?\s*)(['"])((?:(?!\4).|\4\4)*)(\4|\Z)""", re.DOTALL)
# what is given an account's password or its hash: IDENTIFIED [WITH plugin] BY|AS [PASSWORD] and
# PASSWORD(, then the value quoted (maybe cut off) or bare
# in free text (a comment, a message): a key, ``=`` or ``:``, and a value not quoted
# (``/* password=hunter2 */``, ``-- token: abc``); a quoted value is ``_QUOTED_PAIR``'s
_FREE_KEY = re.compile(
    r"(pass(word|wd)?|pwd|secret|token|credentials?|creds?|auth|signature|(api|access|secret|private)[_\-.]?key)$",
    re.IGNORECASE,
)  # a free-text key ends in one of these (``db_password``, ``token``; not ``tokenize``)
# a quoted value, then a comparison or AS, then a column (``'…' = password``, ``'…' AS db_password``)
_REVERSED_PAIR = re.compile(
    r"""(['"])((?:(?!\1).|\1\1)*)\1(\s*(?:=|!=|<>|<=>|\bLIKE\b|\bAS\b)\s*)([A-Za-z_][\w.]*)""", re.IGNORECASE
)
_FREE_PAIR = re.compile(r"""(?<![\w.\-'"`])([A-Za-z_][\w.\-]*)(\s*(?:=>?|:)\s*)(?!['"`*])([^\s'"`,;()]++)(?!\()""")
_ACCOUNT_SECRET = re.compile(
    r"""(?i)(\bIDENTIFIED\s+(?:WITH\s+\S+\s+)?(?:BY|AS)\s+(?:PASSWORD\s+(?=['"`]))?|\bPASSWORD\s*\(\s*)"""
    r"""(?:(['"`])(?:(?!\2).|\2\2)*(?:\2|\Z)|[^\s'"`;),]+)""",
    re.DOTALL,
)


def redact_text(text: str) -> str:
    """Free text that may quote SQL (a parser's message) with its secrets masked, by pattern:
    quoted key/value pairs with a sensitive key, and ``mask_value``'s forms.

    >>> redact_text("Invalid expression / Unexpected token. Line 1, Col: 40. WITH ('password'='x', 'k'='v') AS")
    "Invalid expression / Unexpected token. Line 1, Col: 40. WITH ('password'='***', 'k'='v') AS"

    The tokenizer's message quotes the text around a string it could not end, from an unknown point:
    which of its quotes open a string is unknown, so a quoted part is masked whole.

    >>> redact_text("Error tokenizing 'LECT a FROM s WHERE pwd = 'hunter2 AND b = 1'")
    "Error tokenizing '***'"
    """
    if "Error tokenizing '" in text:
        text = _TOKENIZING.sub(lambda m: m[0] if not _QUOTES.search(m[2]) else f"{m[1]}{MASK}'", text)
    return _redact_by_pattern(text) if may_hold_secret(text) else text


_TOKENIZING = re.compile(r"(Error tokenizing ')(.*)'", re.DOTALL)
_QUOTES = re.compile(r"['\"`]")


def _redact_by_pattern(sql: str) -> str:
    """``redact_sql`` for text the tokenizer refuses (an unterminated string): quoted key/value pairs."""

    def one(m: re.Match[str]) -> str:
        if is_sensitive(m[2]) if m[1] else is_sensitive_column(m[2]):
            return f"{m[1]}{m[2]}{m[1]}{m[3]}{m[4]}{MASK}{m[6]}"
        return m[0][: m.start(5) - m.start()] + mask_value(m[5]) + m[6]

    def account(m: re.Match[str]) -> str:
        return f"{m[1]}{m[2]}{MASK}{m[2]}" if m[2] else f"{m[1]}{MASK}"

    def free(m: re.Match[str]) -> str:
        return f"{m[1]}{m[2]}{MASK}" if _FREE_KEY.search(m[1]) else m[0]

    def reversed_pair(m: re.Match[str]) -> str:
        return f"{m[1]}{MASK}{m[1]}{m[3]}{m[4]}" if is_sensitive_column(m[4].rsplit(".", 1)[-1]) else m[0]

    masked = _ACCOUNT_SECRET.sub(account, _QUOTED_PAIR.sub(one, sql))
    masked = _REVERSED_PAIR.sub(reversed_pair, masked)
    masked = _FREE_PAIR.sub(free, masked) if ("=" in masked or ":" in masked) else masked
    return _URL_USERINFO.sub(rf"\1{MASK}\3", masked)


# sqlglot's warning on a statement it falls back to parsing as an opaque command, which quotes the
# statement's first 100 characters
_FALLBACK_WARNING = re.compile(r"'(.*)'( contains unsupported syntax\..*)", re.DOTALL)


def redact_log_message(message: str) -> str:
    """A log message of a library that may quote SQL, with its secrets masked: the statement that
    sqlglot's fallback warning quotes is redacted as SQL (``redact_sql``), any other text by pattern.

    >>> redact_log_message("'CREATE USER etl IDENTIFIED BY 'hunter2'' contains unsupported syntax. Falling back.")
    "'CREATE USER etl IDENTIFIED BY '***'' contains unsupported syntax. Falling back."
    """
    m = _FALLBACK_WARNING.fullmatch(message)
    return redact_text(message) if m is None else f"'{redact_sql(m[1])}'{m[2]}"


class SecretsLogFilter(logging.Filter):
    """Masks secrets in the records of a logger whose messages quote SQL (``redact_log_message``);
    drops nothing."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except (TypeError, ValueError):  # a record whose arguments do not fit its format: left as it is
            return True
        masked = redact_log_message(message)
        if masked != message:
            record.msg, record.args = masked, None
        return True


def mask_secrets_in_log(name: str) -> None:
    """Installs ``SecretsLogFilter`` on the logger ``name`` once (sqlglot's logger quotes statements).

    >>> mask_secrets_in_log("sqlglot"); mask_secrets_in_log("sqlglot")
    >>> sum(isinstance(f, SecretsLogFilter) for f in logging.getLogger("sqlglot").filters)
    1
    """
    logger = logging.getLogger(name)
    if not any(isinstance(f, SecretsLogFilter) for f in logger.filters):
        logger.addFilter(SecretsLogFilter())
