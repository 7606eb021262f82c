"""Realistic synthetic memories with a fixed seed, and cached databases built from them.

Sentences mix English and Chinese the way agent memories do (preferences, facts, task state,
project notes), with a spread of lengths, categories, tags, keys and scopes. Databases are
cached under benchmarks/.cache/ (gitignored) so reruns are fast.
"""

from __future__ import annotations

import json
import random
import sqlite3
import uuid
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

from zeromem_cli.storage.sqlite import fts
from zeromem_cli.storage.uids import uid_to_db
from zeromem_cli.store import MemoryStore
from zeromem_cli.text.normalize import INDEX_VERSION, content_hash
from zeromem_cli.times import to_iso

CACHE = Path(__file__).resolve().parent / ".cache"
SEED = 20261130

PEOPLE = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "张三", "李四", "王五", "赵六"]
TOOLS = [
    "Python",
    "PyTorch",
    "PostgreSQL",
    "ClickHouse",
    "React",
    "Kubernetes",
    "Redis",
    "Rust",
    "Terraform",
    "Grafana",
    "Kafka",
    "SQLite",
    "FastAPI",
    "Vue",
    "Docker",
]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
ZH_DAYS = ["周一", "周二", "周三", "周四", "周五", "周六", "周日"]
TOPICS = [
    "weekly report",
    "release plan",
    "on-call rotation",
    "budget review",
    "design doc",
    "customer demo",
    "security audit",
    "database migration",
    "hiring loop",
    "offsite",
]
ZH_TOPICS = [
    "周报",
    "发布计划",
    "值班安排",
    "预算评审",
    "设计文档",
    "客户演示",
    "安全审计",
    "数据库迁移",
    "招聘面试",
    "团建活动",
]
CATEGORIES = ["preference", "fact", "task", "project", "instruction", "note", "contact", "general"]

EN_TEMPLATES = [
    "{person} prefers {tool} for new services and dislikes long meetings on {day}.",
    "The {topic} is due every {day} at {hour}:00; send it to {person} before lunch.",
    "Remember that {person} is allergic to peanuts, so avoid them when ordering food.",
    "Project note: we are migrating the {topic} pipeline from {tool} to {tool2} by the end "
    "of the quarter, and {person} owns the rollout checklist.",
    "Task: follow up with {person} about the {topic}; they asked for a summary in three bullet "
    "points and a link to the dashboard.",
    "User likes concise answers, metric units, and code samples in {tool}.",
    "{person}'s timezone is UTC+{tz}; schedule calls between {hour}:00 and {hour2}:00 their time.",
    "Staging runs {tool} {major}.{minor}; production is still on {major2}.{minor} until the "
    "{topic} is finished.",
    "Incident {ticket}: the {topic} job failed on {day} because {tool} ran out of memory; the "
    "fix was to raise the limit and add an alert in Grafana.",
    "Always write commit messages in the imperative mood and reference the ticket, e.g. {ticket}.",
]
ZH_TEMPLATES = [
    "{zh_topic}发送时间改为每{zh_day}下午{hour}点，抄送{person}。",
    "用户喜欢简洁的中文摘要，不要超过三段，技术名词保留英文，例如 {tool}。",
    "{person}负责{zh_topic}，有问题先在群里找他，紧急情况打电话。",
    "推荐系统项目使用 {tool} 和 {tool2}，延迟目标 {latency}ms 以内，{zh_day}评审。",
    "已把会议室 A{room} 订到{zh_day}下午三点，参会人：{person}、{person2}。",
    "工单 {ticket}：登录页面在 Safari 上白屏，已复现，等待{person}修复。",
    "以后生成{zh_topic}时都用表格格式，并在结尾附上下周计划。",
    "数据仓库从 {tool} 迁移到 {tool2}，预计{month}月底完成，{person}跟进进度。",
    "{person}对花生过敏，订餐时避免含花生的菜品。",
    "生产数据库的备份每天凌晨{hour}点执行，保留三十天，恢复演练每季度一次。",
]


def _fill(rng: random.Random, template: str) -> str:
    tool, tool2 = rng.sample(TOOLS, 2)
    person, person2 = rng.sample(PEOPLE, 2)
    return template.format(
        person=person,
        person2=person2,
        tool=tool,
        tool2=tool2,
        day=rng.choice(DAYS),
        zh_day=rng.choice(ZH_DAYS),
        topic=rng.choice(TOPICS),
        zh_topic=rng.choice(ZH_TOPICS),
        hour=rng.randint(1, 11),
        hour2=rng.randint(12, 18),
        tz=rng.randint(-8, 9),
        major=rng.randint(1, 16),
        major2=rng.randint(1, 16),
        minor=rng.randint(0, 9),
        ticket=f"T-{rng.randint(100, 99999)}",
        latency=rng.choice([50, 100, 200, 500]),
        room=rng.randint(100, 999),
        month=rng.randint(1, 12),
    )


def memories(count: int, seed: int = SEED) -> Iterator[dict[str, object]]:
    """``count`` memory records (export field names), deterministic for a seed."""
    rng = random.Random(seed)
    start = datetime(2025, 1, 1, tzinfo=timezone.utc)
    span = 700 * 86400
    for number in range(count):
        pieces = rng.randint(1, 3)
        templates = ZH_TEMPLATES if rng.random() < 0.4 else EN_TEMPLATES
        content = " ".join(_fill(rng, rng.choice(templates)) for _ in range(pieces))
        created = start + timedelta(seconds=int(span * number / max(count, 1)))
        tags = rng.sample(
            ["work", "home", "infra", "people", "food", "schedule", "ml"], rng.randint(0, 2)
        )
        yield {
            "uid": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
            "content": content,
            "category": rng.choice(CATEGORIES),
            "tags": tags,
            "key": f"k{number}" if rng.random() < 0.05 else None,
            "user": rng.choice([None, None, None, "alice", "bob"]),
            "importance": rng.randint(0, 10),
            "pinned": rng.random() < 0.01,
            "created_at": to_iso(created),
        }


def queries(count: int, seed: int = SEED + 1) -> list[str]:
    """Natural questions in both languages about the synthetic memories."""
    rng = random.Random(seed)
    forms = [
        lambda: f"when is the {rng.choice(TOPICS)} due?",
        lambda: f"what does {rng.choice(PEOPLE)} prefer?",
        lambda: f"which version of {rng.choice(TOOLS)} runs in staging?",
        lambda: f"{rng.choice(ZH_TOPICS)}什么时候发送？",
        lambda: f"谁负责{rng.choice(ZH_TOPICS)}？",
        lambda: f"{rng.choice(TOOLS)} migration plan",
    ]
    return [rng.choice(forms)() for _ in range(count)]


# Bump when what ``memories`` generates or how databases are built changes: cached files are
# named after it (and the index version), so a stale cache is never reused.
GENERATOR_VERSION = 4


def build_database(path: Path, count: int, seed: int = SEED) -> Path:
    """Create (or reuse) a database of ``count`` synthetic memories at ``path``.

    Rows go in with ``executemany`` in one transaction (ids assigned in order), indexed through
    the store's own ``storage.fts.index_rows`` so the FTS content is exactly what ``add``
    writes, then compacted as ``zeromem gc --vacuum`` would (FTS optimize, VACUUM); the 1M
    tier builds in a few minutes.
    """
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    for suffix in ("", "-wal", "-shm"):
        Path(str(partial) + suffix).unlink(missing_ok=True)
    with MemoryStore(partial) as store:
        conn = store.connection
        conn.execute("PRAGMA synchronous=OFF")  # a throwaway file until it is renamed
        conn.execute("PRAGMA cache_size=-262144")  # 256 MB: FTS segment merges stay in memory
        with store.transaction():
            conn = store.connection
            batch: list[dict[str, object]] = []
            for number, record in enumerate(memories(count, seed), start=1):
                batch.append(
                    {
                        **record,
                        "id": number,
                        "uid": uid_to_db(str(record["uid"])),  # stored form, as the store writes it
                        "content_hash": content_hash(str(record["content"])),
                        "tags": json.dumps(record["tags"], ensure_ascii=False),
                        "pinned": int(bool(record["pinned"])),
                        "user": record["user"] or "",
                        "updated_at": record["created_at"],
                    }
                )
                if len(batch) >= 10_000:
                    _insert(store, conn, batch)
                    batch = []
            _insert(store, conn, batch)
        # Compacted as `zeromem gc --vacuum` leaves a store: the FTS segments merged into one
        # and the pages that bulk loading freed returned (about 5% of the file at 100k).
        with store.transaction():
            conn = store.connection
            conn.execute("INSERT INTO memories_fts(memories_fts) VALUES ('optimize')")
        conn.execute("VACUUM")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    partial.rename(path)
    return path


def _insert(store: MemoryStore, conn: sqlite3.Connection, batch: list[dict[str, object]]) -> None:
    conn.executemany(
        "INSERT INTO memories (id, uid, content, content_hash, category, tags, key, user, "
        "importance, pinned, created_at, updated_at) VALUES (:id, :uid, :content, :content_hash, "
        ":category, :tags, :key, :user, :importance, :pinned, :created_at, :updated_at)",
        batch,
    )
    fts.index_rows(conn, batch)  # the store's own segmentation, not a copy of it


def cached_database(count: int) -> Path:
    """The cached database of ``count`` memories, built on first use."""
    name = f"synthetic-{count}-g{GENERATOR_VERSION}-i{INDEX_VERSION}.db"
    return build_database(CACHE / name, count)


def raw_content_bytes(path: Path) -> int:
    """UTF-8 bytes of every memory's content: the floor a footprint is compared with."""
    conn = sqlite3.connect(path)
    try:
        return int(
            conn.execute("SELECT sum(length(CAST(content AS BLOB))) FROM memories").fetchone()[0]
        )
    finally:
        conn.close()
