"""The shortcuts that make bulk import fast give exactly what the plain code gives.

Each fast path (NFKC with full-width punctuation replaced first, bigrams joined by ``map``,
labels segmented once per import, the secret pre-checks, the JSON line scanner...) is checked
against the straightforward computation, and an imported store against one filled by ``add``.
"""

from __future__ import annotations

import json
import sqlite3
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import Run, as_json
from zeromem_cli import MemoryStore
from zeromem_cli.text.normalize import _WIDE_TO_ASCII, CJK_RUN, cjk_grams, index_text, normalize
from zeromem_cli.text.secrets import find_secrets, first_secret
from zeromem_cli.transfer.read import RecordError, parse, validate_record

# Characters that stress normalisation and segmentation: full-width forms (the replaced ones
# and others), combining marks that compose with ASCII or kana, CJK, Latin, separators.
TRICKY = (
    "，：；！？（）％～\u3000ＡＺａｚ０９＂＇［］\u0301\u0308\u3099\u309a"
    "かがカガﾊﾟ周报发送会議회의éeE1 _-.,!?:;()%~\n\tﬁ①。、「」…·“’"
)
TEXTS = st.one_of(st.text(alphabet=TRICKY, max_size=40), st.text(max_size=40))


def test_each_replaced_character_is_its_own_nfkc_form() -> None:
    for wide, narrow in _WIDE_TO_ASCII:
        assert unicodedata.normalize("NFKC", wide) == narrow
        assert narrow.isascii() and len(narrow) == 1


@settings(max_examples=400, deadline=None)
@given(TEXTS)
def test_normalize_is_nfkc(text: str) -> None:
    assert normalize(text) == unicodedata.normalize("NFKC", text)


def _reference_index_text(text: str) -> str:
    """index_text written plainly: words and CJK runs in order, each run as its grams."""
    import re

    if text.isascii():
        return text
    pieces: list[str] = []
    position = 0
    normalized = unicodedata.normalize("NFKC", text)
    word = re.compile(r"[^\W_]+")
    for run in CJK_RUN.finditer(normalized):
        pieces += [w for w in word.findall(normalized[position : run.start()])]
        pieces += cjk_grams(run.group())
        position = run.end()
    pieces += word.findall(normalized[position:])
    return " ".join(pieces)


@settings(max_examples=400, deadline=None)
@given(TEXTS)
def test_index_text_is_the_plain_segmentation(text: str) -> None:
    assert index_text(text) == _reference_index_text(text)


# -- an imported store is the store ``add`` builds ---------------------------------------------

RECORDS = [
    {"content": "周报每周五下午五点发送，抄送张三：记得附上图表", "tags": ["周报", "work"]},
    {"content": "Ｆｕｌｌ－ｗｉｄｔｈ　ｔｅｘｔ，ＮＦＫＣ", "category": "note", "key": "wide"},
    {"content": "Café Zürich opens at 8; deploy🤖bot runs nightly", "tags": ["café", "ops"]},
    {"content": "明日の会議は10時から、ガ行のテスト", "category": "日程", "tags": ["会議"]},
    {"content": "plain ascii memory about PostgreSQL", "tags": ["db", "work"]},
    {"content": "猫", "category": "fact", "key": "单字"},
    {"content": "another 周报 note with the same tags", "tags": ["周报", "work"]},
]


def _vocabulary(path: Path) -> list[tuple[object, ...]]:
    """Every token the FTS index holds: (term, memory id, column, position)."""
    conn = sqlite3.connect(path)
    try:
        conn.execute(
            "CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, memories_fts, instance)"
        )
        return conn.execute(
            "SELECT term, doc, col, offset FROM vocab ORDER BY 1, 2, 3, 4"
        ).fetchall()
    finally:
        conn.close()


def test_import_indexes_exactly_what_add_indexes(cli: Run, db_path: Path, tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in RECORDS), "utf-8")
    assert as_json(cli("import", str(source), "--json"))["added"] == len(RECORDS)
    added = tmp_path / "added.db"
    with MemoryStore(added) as store:
        for record in RECORDS:
            store.add(
                str(record["content"]),
                category=record.get("category"),  # type: ignore[arg-type]
                tags=record.get("tags"),  # type: ignore[arg-type]
                key=record.get("key"),  # type: ignore[arg-type]
            )
    assert _vocabulary(db_path) == _vocabulary(added)
    with MemoryStore(db_path) as imported, MemoryStore(added) as reference:
        for query in ("周报", "猫", "full width", "cafe", "会議", "work", "单字", "ガ"):
            assert [m.content for m in imported.search(query)] == [
                m.content for m in reference.search(query)
            ]
        assert [(m.content, m.tags, m.key) for m in imported.list(limit=None)] == [
            (m.content, m.tags, m.key) for m in reference.list(limit=None)
        ]


# -- records: the JSON line scanner, times, tags ----------------------------------------------


def _parsed(text: str) -> list[tuple[str, object]]:
    return [
        (where, str(item) if isinstance(item, RecordError) else item)
        for where, item in parse(text, "jsonl")
    ]


def _not_json(name: str) -> object:
    raise ValueError(f"{name} is not a JSON value")  # NaN, Infinity: refused as invalid JSON


def _parsed_by_json_loads(text: str) -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"line {number}"
        try:
            out.append((where, json.loads(line, parse_constant=_not_json)))
        except ValueError as exc:
            out.append((where, str(RecordError(where, None, f"not valid JSON ({exc})"))))
    return out


JSON_LINES = [
    '{"content": "plain"}',
    '{"content": "a"}{"content": "b"}',  # two objects on a line
    '{"content": "trailing comma",}',
    '{"content": "x"} ',  # trailing and leading blanks
    ' {"content": "x"}',
    '\ufeff{"content": "bom"}',
    '{"content": NaN, "n": Infinity}',
    '{"content": "dup", "content": "last wins"}',
    '{"content": "\\u5468\\u62a5", "tags": ["a", "a"]}',
    '{"content": "unterminated}',
    "{}",
    "{",
    "}",
    "[1, 2]",
    '"text"',
    "   ",
    '{"content": "nested", "meta": {"a": [1, {"b": null}]}}',
]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(JSON_LINES), max_size=8))
def test_jsonl_lines_read_as_json_loads_reads_them(lines: list[str]) -> None:
    text = "\n".join(lines)
    assert _parsed(text) == _parsed_by_json_loads(text)


def _validated(record: dict[str, object]) -> dict[str, object]:
    return validate_record(
        record, "line 1", clean=lambda text: text.strip(), scope=None, now="2026-01-01T00:00:00Z"
    ).values


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("2025-02-30T00:00:00Z", "not an ISO-8601 date or time"),
        ("2025-01-01T24:00:00Z", "not an ISO-8601 date or time"),
        ("0000-01-01T00:00:00Z", "not an ISO-8601 date or time"),
    ],
)
def test_canonical_looking_times_that_do_not_exist_are_refused(value: str, problem: str) -> None:
    with pytest.raises(RecordError, match=f"field 'created_at': {problem}"):
        _validated({"content": "x", "created_at": value})


def test_times_are_kept_or_made_canonical() -> None:
    values = _validated(
        {"content": "x", "created_at": "2025-03-01T10:00:00Z", "updated_at": "2025-03-01"}
    )
    assert values["created_at"] == "2025-03-01T10:00:00Z"
    assert values["updated_at"] == "2025-03-01T00:00:00Z"


def test_tags_are_cleaned_and_checked_the_same_the_first_time_and_after() -> None:
    for _ in range(2):  # the second time answers from the cache of tag sets
        assert _validated({"content": "x", "tags": [" a ", "a", "b\x00c"]})["tags"] == '["a", "bc"]'
        with pytest.raises(RecordError, match="field 'tags': is empty"):
            _validated({"content": "x", "tags": ["ok", "  "]})
        with pytest.raises(RecordError, match="field 'tags': is longer than 200 characters"):
            _validated({"content": "x", "tags": ["t" * 201]})
        with pytest.raises(RecordError, match="field 'tags': expected text, got a number"):
            _validated({"content": "x", "tags": ["ok", 3]})


# -- secrets: one pre-check for all the fields of a record -------------------------------------


def _texts() -> list[str]:
    from tests.core.test_secrets import ORDINARY, SAMPLES

    samples = [template.format(s=secret) for _, template, secret in SAMPLES]
    return samples + list(ORDINARY) + [s.upper() for s in samples] + [s.lower() for s in samples]


def test_first_secret_names_the_first_field_that_holds_one() -> None:
    filler = [("content", "ordinary words: a colon, and a_long_identifier_here"), ("tags", "[]")]
    for text in _texts():
        expected = find_secrets(text)
        for position in range(len(filler) + 1):
            fields = list(filler)
            fields.insert(position, ("key", text))
            found = first_secret([*fields, ("meta", None), ("history[1].key", "")])
            if expected:
                assert found == ("key", expected[0]), text
            else:
                assert found is None, text


def test_imported_columns_keep_their_sql_types(cli: Run, db_path: Path) -> None:
    """Absent values are NULL (not ''), the uid a 16-byte BLOB, whatever the bind path."""
    records = [
        {"content": "no key, no times"},
        {
            "content": "all of them",
            "key": "k",
            "expires_at": "2099-01-01T00:00:00Z",
            "last_accessed_at": "2025-01-01T00:00:00Z",
            "deleted_at": "2025-02-01T00:00:00Z",
            "deleted_reason": "archived",
        },
    ]
    data = "".join(json.dumps(r) + "\n" for r in records)
    assert as_json(cli("import", "-", "--format", "jsonl", "--json", input=data))["added"] == 2
    conn = sqlite3.connect(db_path)
    try:
        rows = conn.execute(
            "SELECT typeof(uid), length(uid), typeof(key), typeof(expires_at), "
            "typeof(last_accessed_at), typeof(deleted_at), typeof(deleted_reason) "
            "FROM memories ORDER BY id"
        ).fetchall()
    finally:
        conn.close()
    assert rows == [
        ("blob", 16, "null", "null", "null", "null", "null"),
        ("blob", 16, "text", "text", "text", "text", "text"),
    ]


def test_bulk_index_settings_are_put_back(cli: Run, db_path: Path, tmp_path: Path) -> None:
    """Import enlarges FTS5's pending-terms hash while it writes; afterwards the index's
    config is as before (no setting left behind) and the index is sound."""
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in RECORDS), "utf-8")

    def config() -> list[tuple[object, ...]]:
        conn = sqlite3.connect(db_path)
        try:
            conn.execute(
                "INSERT INTO memories_fts(memories_fts, rank) VALUES ('integrity-check', 1)"
            )
            return conn.execute("SELECT k, v FROM memories_fts_config ORDER BY k").fetchall()
        finally:
            conn.close()

    cli("add", "before the import")
    before = config()
    assert as_json(cli("import", str(source), "--json"))["added"] == len(RECORDS)
    assert config() == before
    assert as_json(cli("import", str(source), "--on-conflict", "duplicate", "--json"))["added"]
    assert config() == before


def test_characters_skipped_as_never_in_a_word_are_not_word_characters() -> None:
    import re

    from zeromem_cli.text.normalize import _NOT_WORD

    assert all(re.fullmatch(r"[\W_]", char) for char in _NOT_WORD)


def test_every_whitespace_but_the_space_is_unprintable() -> None:
    """content_hash skips its whitespace folding for printable text without double, leading
    or trailing spaces: that holds only if str.split() splits on nothing else printable."""
    separators = [chr(c) for c in range(0x110000) if len(f"a{chr(c)}b".split()) == 2]
    assert [c for c in separators if c.isprintable()] == [" "]


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=" \t\n\u3000\u2028\x85\xa0abcß，周报ﬁ", max_size=12))
def test_content_hash_folds_whitespace_and_case(text: str) -> None:
    import hashlib

    from zeromem_cli.text.normalize import content_hash

    canonical = " ".join(unicodedata.normalize("NFKC", text).casefold().split())
    digest = hashlib.blake2b(canonical.encode("utf-8"), digest_size=8).digest()
    assert content_hash(text) == int.from_bytes(digest, "big", signed=True)
