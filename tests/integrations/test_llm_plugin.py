"""The ``llm`` plugin, driven through the real ``llm`` CLI (a subprocess of this interpreter's
environment, ``LLM_USER_PATH`` in tmp_path) with the offline ``echo`` model of ``llm-echo``,
which echoes the prompt it received and runs the tool calls a JSON prompt asks for."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from zeromem_cli import MemoryStore

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("llm") is None, reason="llm is not installed (pip install llm)"
)
# Every test drives the real llm CLI (seconds of CPU each): all are slow but one, the fast
# loop's pass through this face (docs/development.md).
slow = pytest.mark.slow
needs_echo = pytest.mark.skipif(
    importlib.util.find_spec("llm_echo") is None,
    reason="llm-echo is not installed (pip install llm-echo)",
)

SECRET = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"  # a GitHub token's shape


@pytest.fixture
def env(tmp_path: Path, db_path: Path) -> dict[str, str]:
    """The environment of both CLIs: one database, llm's own files in tmp_path, and only the
    two plugins under test loaded (whatever else is installed)."""
    llm_home = tmp_path / "llm-home"
    llm_home.mkdir()
    return {
        **os.environ,
        "LLM_USER_PATH": str(llm_home),
        "LLM_LOAD_PLUGINS": "llm-echo,zeromem",
        "ZEROMEM_DB": str(db_path),
    }


def run_llm(
    env: dict[str, str], *args: str, check: bool = True
) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [sys.executable, "-m", "llm", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if check:
        assert result.returncode == 0, result.stderr
    return result


def zeromem(env: dict[str, str], *args: str) -> str:
    result = subprocess.run(
        [sys.executable, "-m", "zeromem_cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def echoed(stdout: str) -> list[dict[str, Any]]:
    """The JSON objects the echo model printed, one per response of the chain."""
    decoder = json.JSONDecoder()
    found, position = [], 0
    while position < len(stdout):
        if stdout[position].isspace():
            position += 1
            continue
        value, position = decoder.raw_decode(stdout, position)
        found.append(value)
    return found


def tool_calls(*calls: tuple[str, dict[str, Any]]) -> str:
    """A prompt that makes the echo model call tools (llm-echo's README)."""
    return json.dumps(
        {
            "prompt": "use the tools",
            "tool_calls": [{"name": name, "arguments": arguments} for name, arguments in calls],
        }
    )


def tool_outputs(stdout: str) -> list[str]:
    return [result["output"] for result in echoed(stdout)[-1]["tool_results"]]


@pytest.fixture
def memories(db_path: Path) -> MemoryStore:
    with MemoryStore(db_path) as store:
        store.add("Weekly report goes out Fridays 17:00", category="preference", key="report_time")
        store.add("周报发送时间改为每周五下午五点", category="preference", tags=["周报"])
        store.add("Staging database is db-2.internal", category="fact", tags=["work"], pinned=True)
        store.add("The release train leaves every second Tuesday", category="fact", tags=["work"])
        yield store  # type: ignore[misc]


@slow
def test_installing_zeromem_beside_llm_enables_the_plugin(env: dict[str, str]) -> None:
    discovered = {k: v for k, v in env.items() if k != "LLM_LOAD_PLUGINS"}  # entry points
    plugins = json.loads(run_llm(discovered, "plugins").stdout)
    ours = [plugin for plugin in plugins if plugin["name"] == "zeromem"]
    assert ours and set(ours[0]["hooks"]) == {"register_fragment_loaders", "register_tools"}
    loaders = run_llm(env, "fragments", "loaders").stdout
    assert "zeromem:" in loaders
    tools = run_llm(env, "tools", "list", "--json").stdout
    names = {t["name"] for box in json.loads(tools)["toolboxes"] for t in box["tools"]}
    assert names == {"Zeromem_search", "Zeromem_remember", "Zeromem_forget"}


@needs_echo
@pytest.mark.parametrize(
    "query",
    [
        "when is the weekly report due?",
        pytest.param("周报几点发送？", marks=slow),
        pytest.param("", marks=slow),
    ],
    ids=["en", "zh", "core"],
)
def test_the_fragment_is_exactly_what_pack_prints(
    env: dict[str, str], memories: MemoryStore, query: str
) -> None:
    env = {**env, "ZEROMEM_PACK_FORMAT": "xml", "ZEROMEM_PACK_BUDGET": "120"}  # from config
    packed = zeromem(env, "pack", *([query] if query else []), "--no-touch")
    assert packed.startswith("<memories>\n") and "db-2.internal" in packed  # the pinned one
    out = run_llm(env, "-m", "echo", "-f", f"zeromem:{query}", "what do you know?").stdout
    # llm joins fragments and the prompt with a newline: the fragment arrives byte for byte.
    assert echoed(out)[0]["prompt"] == packed + "\n" + "what do you know?"


@slow
@needs_echo
def test_fragment_options_after_the_question_mark(
    env: dict[str, str], memories: MemoryStore
) -> None:
    packed = zeromem(
        env, "pack", "release", "--budget", "300", "--format", "json", "--tag", "work", "--no-touch"
    )
    out = run_llm(
        env, "-m", "echo", "-f", "zeromem:release?budget=300&format=json&tag=work", "q"
    ).stdout
    assert echoed(out)[0]["prompt"] == packed + "\nq"
    assert [m["content"] for m in json.loads(packed)] == [
        "Staging database is db-2.internal",
        "The release train leaves every second Tuesday",
    ]
    # A question mark that ends the query is part of it, not an empty option list.
    plain = run_llm(env, "-m", "echo", "-f", "zeromem:when does the release train leave?", "q")
    assert "second Tuesday" in echoed(plain.stdout)[0]["prompt"]


@slow
@needs_echo
def test_identical_fragments_are_one_fragment_and_touch_nothing(
    env: dict[str, str], memories: MemoryStore
) -> None:
    before = {m.id: (m.access_count, m.updated_at) for m in memories.list()}
    prompts = [
        echoed(run_llm(env, "-m", "echo", "-f", "zeromem:weekly report", "q").stdout)[0]["prompt"]
        for _ in range(3)
    ]
    assert prompts[0] == prompts[1] == prompts[2]
    assert "Weekly report goes out" in prompts[0]
    stored = json.loads(run_llm(env, "fragments", "list", "--json").stdout)
    assert [f["source"] for f in stored] == ["zeromem:weekly report"]  # llm kept it once
    # No access recorded: pack's access part of the score would otherwise change the order.
    assert {m.id: (m.access_count, m.updated_at) for m in memories.list()} == before


@slow
@needs_echo
def test_bad_fragment_option_is_one_error_line(env: dict[str, str], memories: MemoryStore) -> None:
    result = run_llm(env, "-m", "echo", "-f", "zeromem:report?budget=lots", "q", check=False)
    assert result.returncode == 1
    assert "budget must be a positive number of tokens, not 'lots'" in result.stderr
    assert "Traceback" not in result.stderr


@slow
@needs_echo
def test_a_fragment_error_masks_a_secret_it_quotes(
    env: dict[str, str], memories: MemoryStore
) -> None:
    token = "ghp_" + "Q7r8S9t0U1v2W3x4Y5z6A7b8C9d0E1f2G3h4"
    result = run_llm(env, "-m", "echo", "-f", f"zeromem:report?budget={token}", "q", check=False)
    assert result.returncode == 1
    assert "budget must be a positive number of tokens, not '[secret: github_token]'" in (
        result.stderr
    )
    # llm itself names the fragment it could not load, argument and all ("Could not load
    # fragment zeromem:...: <our message>"): that part is llm's, typed by the person.
    assert result.stderr.count(token[4:]) == 1


@slow
@needs_echo
def test_a_remembered_memory_is_found_by_zeromem_search(env: dict[str, str]) -> None:
    out = run_llm(
        env,
        "-m",
        "echo",
        "-T",
        "Zeromem",
        tool_calls(
            ("Zeromem_remember", {"text": "My timezone is CET", "key": "timezone"}),
            ("Zeromem_remember", {"text": "Deploys need a second reviewer", "tags": ["ops"]}),
        ),
    ).stdout
    assert tool_outputs(out) == ["stored #1", "stored #2"]
    assert "My timezone is CET" in zeromem(env, "search", "timezone")
    # The same key again: the add path's upsert, one memory with the new text.
    out = run_llm(
        env,
        "-m",
        "echo",
        "-T",
        "Zeromem",
        tool_calls(("Zeromem_remember", {"text": "My timezone is JST", "key": "timezone"})),
    ).stdout
    assert tool_outputs(out) == ["updated #1 (key timezone)"]
    found = json.loads(zeromem(env, "search", "timezone", "--json"))
    assert [(m["id"], m["content"], m["meta"]) for m in found] == [
        (1, "My timezone is JST", {"source": "llm"})
    ]
    assert json.loads(zeromem(env, "show", "2", "--json"))["tags"] == ["ops"]


@slow
@needs_echo
def test_remember_refuses_a_secret_and_never_echoes_it(env: dict[str, str], db_path: Path) -> None:
    out = run_llm(
        env,
        "-m",
        "echo",
        "-T",
        "Zeromem",
        tool_calls(("Zeromem_remember", {"text": f"my GitHub token is {SECRET}"})),
    ).stdout
    [output] = tool_outputs(out)
    assert output.startswith("Error: refused: this looks like a credential (rule github_")
    assert "nothing was stored" in output and SECRET not in output
    assert json.loads(zeromem(env, "list", "--json")) == []
    assert SECRET.encode() not in db_path.read_bytes()


@slow
@needs_echo
def test_search_is_compact_and_budgeted_and_forget_works(
    env: dict[str, str], memories: MemoryStore
) -> None:
    for number in range(30):
        memories.add(f"Deployment checklist item {number}: verify the canary dashboard first")
    added = memories.get(1).created_at[:10]
    out = run_llm(
        env,
        "-m",
        "echo",
        "-T",
        "Zeromem(max_tokens=60)",
        tool_calls(
            ("Zeromem_search", {"query": "deployment checklist", "limit": 20}),
            ("Zeromem_search", {"query": "weekly report"}),
            ("Zeromem_search", {"query": "nothing like this anywhere"}),
            ("Zeromem_forget", {"key": "report_time"}),
            ("Zeromem_forget", {"id": 999}),
        ),
    ).stdout
    many, one, none, forgot, missing = tool_outputs(out)
    from zeromem_cli.pack.tokens import count_tokens

    assert count_tokens(many) <= 60 and many.endswith("more not shown: over the 60-token budget)")
    assert many.startswith("#") and "Deployment checklist item" in many
    assert one == f"#1 [preference] key=report_time {added}: Weekly report goes out Fridays 17:00"
    assert none == "no memories match"
    assert forgot == "forgot #1: Weekly report goes out Fridays 17:00"
    assert missing == "Error: no memory #999 in this scope"
    assert "Weekly report" not in zeromem(env, "list")
    assert zeromem(env, "restore", "1") == "1\n"  # a soft delete, as `zeromem forget` does


@slow
@needs_echo
def test_the_tool_box_scope_is_the_one_it_was_given(env: dict[str, str]) -> None:
    run_llm(
        env,
        "-m",
        "echo",
        "-T",
        'Zeromem(user="alice")',
        tool_calls(("Zeromem_remember", {"text": "Alice prefers tea over coffee"})),
    )
    assert "Alice prefers tea" in zeromem(env, "search", "tea", "--user", "alice")
    assert zeromem(env, "search", "tea") == ""  # the unscoped store never sees it
    out = run_llm(
        env,
        "-m",
        "echo",
        "-T",
        "Zeromem",
        tool_calls(("Zeromem_search", {"query": "tea"})),
    ).stdout
    assert tool_outputs(out) == ["no memories match"]


@slow
@needs_echo
def test_a_stored_secret_is_masked_in_search_results(env: dict[str, str], db_path: Path) -> None:
    with MemoryStore(db_path) as store:  # stored on purpose, past the write-time refusal
        store.add(f"deploy bot token {SECRET}", allow_secret=True)
    out = run_llm(
        env, "-m", "echo", "-T", "Zeromem", tool_calls(("Zeromem_search", {"query": "deploy"}))
    ).stdout
    [output] = tool_outputs(out)
    assert "deploy bot token [secret: github_" in output and SECRET not in out


@slow
@needs_echo
def test_a_bad_tool_box_setting_is_one_error_line(env: dict[str, str]) -> None:
    result = run_llm(env, "-m", "echo", "-T", "Zeromem(max_tokens=5)", "hi", check=False)
    assert result.returncode == 1
    assert result.stderr == "Error: Zeromem: max_tokens must be at least 20\n"


# -- the project scope (#18): the same environment, the same memories as `zeromem` ------------


@pytest.fixture
def projects(db_path: Path) -> None:
    """One user's memories in two projects and outside any, each in an earlier session."""
    with MemoryStore(db_path, session="monday", project="github.com/Acme/App") as app:
        app.add("Deploy the app with make release", category="fact")
    with MemoryStore(db_path, session="monday", project="site") as site:
        site.add("Deploy the site by pushing to the gh-pages branch", category="fact")
    with MemoryStore(db_path, session="monday") as own:
        own.add("Deploy windows are Tuesday mornings", category="preference")


def repository(tmp_path: Path) -> Path:
    """A git checkout (its files as git writes them) whose origin carries a credential."""
    repo = tmp_path / "checkout"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "config").write_text(
        '[core]\n\tbare = false\n[remote "origin"]\n'
        "\turl = https://oauth2:" + SECRET + "@github.com/Acme/App.git\n",
        encoding="utf-8",
    )
    (repo / "src").mkdir()
    return repo


def run_in(cwd: Path, env: dict[str, str], *args: str) -> str:
    result = subprocess.run(
        [sys.executable, "-m", "llm", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


@slow
@needs_echo
def test_the_fragment_reads_the_project_of_zeromem_project(
    env: dict[str, str], projects: None
) -> None:
    env = {**env, "ZEROMEM_PROJECT": "site"}
    packed = zeromem(env, "pack", "deploy", "--no-touch")
    assert "gh-pages" in packed and "make release" not in packed and "Tuesday" not in packed
    prompt = echoed(run_llm(env, "-m", "echo", "-f", "zeromem:deploy", "q").stdout)[0]["prompt"]
    assert prompt == packed + "\nq"
    # A fragment option names another project; inherit adds the user's own memories.
    other = run_llm(
        env, "-m", "echo", "-f", "zeromem:deploy?project=github.com/Acme/App&inherit=true", "q"
    ).stdout
    prompt = echoed(other)[0]["prompt"]
    assert "make release" in prompt and "Tuesday" in prompt and "gh-pages" not in prompt


@slow
@needs_echo
def test_project_auto_is_the_repository_llm_runs_in(
    env: dict[str, str], projects: None, tmp_path: Path
) -> None:
    env = {**env, "ZEROMEM_PROJECT": "auto"}
    inside = repository(tmp_path) / "src"
    out = run_in(inside, env, "-m", "echo", "-f", "zeromem:deploy", "q")
    prompt = echoed(out)[0]["prompt"]
    assert "make release" in prompt and "gh-pages" not in prompt and "Tuesday" not in prompt
    assert SECRET not in out
    # Outside any repository `auto` is no project: the user's own memories.
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    prompt = echoed(run_in(outside, env, "-m", "echo", "-f", "zeromem:deploy", "q"))[0]["prompt"]
    assert "Tuesday" in prompt and "make release" not in prompt and "gh-pages" not in prompt
    # A tool call in the repository writes into its project, where `zeromem` finds it.
    out = run_in(
        inside,
        env,
        "-m",
        "echo",
        "-T",
        "Zeromem",
        tool_calls(("Zeromem_remember", {"text": "Releases are tagged vYEAR.N"})),
    )
    assert tool_outputs(out) == ["stored #4"]
    unscoped = {k: v for k, v in env.items() if k != "ZEROMEM_PROJECT"}
    found = json.loads(zeromem(unscoped, "show", "4", "--project", "github.com/Acme/App", "--json"))
    assert found["project"] == "github.com/Acme/App" and found["session"] is None
    assert zeromem(unscoped, "search", "tagged") == ""  # not the user's project-less memory


@slow
@needs_echo
def test_the_tool_box_project_and_isolation_are_the_ones_it_was_given(
    env: dict[str, str], projects: None
) -> None:
    out = run_llm(
        env,
        "-m",
        "echo",
        "-T",
        'Zeromem(project="site")',
        tool_calls(("Zeromem_search", {"query": "deploy"})),
    ).stdout
    [found] = tool_outputs(out)
    assert "gh-pages" in found and "make release" not in found and "Tuesday" not in found
    # A new session reads the earlier ones; isolated (option or setting), only its own.
    calls = tool_calls(("Zeromem_search", {"query": "deploy"}))
    box = 'Zeromem(project="site", session="tuesday"{})'
    assert (
        "gh-pages"
        in tool_outputs(run_llm(env, "-m", "echo", "-T", box.format(""), calls).stdout)[0]
    )
    isolated = run_llm(env, "-m", "echo", "-T", box.format(", isolate=true"), calls).stdout
    assert tool_outputs(isolated) == ["no memories match"]
    setting = {**env, "ZEROMEM_SCOPE_ISOLATE_SESSIONS": "true"}
    assert tool_outputs(run_llm(setting, "-m", "echo", "-T", box.format(""), calls).stdout) == [
        "no memories match"
    ]
    fragment = "zeromem:deploy?project=site&session=tuesday&isolate=true"
    prompt = echoed(run_llm(env, "-m", "echo", "-f", fragment, "q").stdout)[0]["prompt"]
    assert "gh-pages" not in prompt


@slow
@needs_echo
def test_a_bad_isolate_value_is_one_error_line(env: dict[str, str]) -> None:
    result = run_llm(env, "-m", "echo", "-T", 'Zeromem(isolate="yes")', "hi", check=False)
    assert result.returncode == 1
    assert result.stderr == "Error: Zeromem: isolate must be true or false, not 'yes'\n"
    result = run_llm(env, "-m", "echo", "-f", "zeromem:x?isolate=maybe", "q", check=False)
    assert result.returncode == 1 and "isolate must be true or false, not 'maybe'" in result.stderr
