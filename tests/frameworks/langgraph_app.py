"""Two small LangGraph apps on ``ZeromemStore``, each run as its own process by
tests/frameworks/test_langgraph_graph.py, with fake chat models from langchain-core's testing
utilities (no API key, no network):

- ``notes``: a StateGraph whose node recalls from the store, calls the model with what it
  recalled, and writes what the user asked to keep (rule-based);
- ``langmem``: LangGraph's prebuilt ReAct agent with LangMem's memory tools over the store.

``python -m tests.frameworks.langgraph_app APP DB USER MESSAGE [SCRIPT...]`` prints one JSON
line: what the app recalled or what its tools returned, and the model's answer.
"""

from __future__ import annotations

import json
import sys
import uuid
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.store.base import BaseStore

from zeromem_cli.langgraph import ZeromemStore


class ToolCallingFake(GenericFakeChatModel):
    """The fake model as an agent's model: tools bound to it change nothing (its replies,
    tool calls included, are scripted)."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> ToolCallingFake:  # type: ignore[override]
        return self


class NotesState(MessagesState):
    recalled: list[str]


def notes_app(store: BaseStore, model: GenericFakeChatModel) -> Any:
    def respond(state: NotesState, config: RunnableConfig, *, store: BaseStore) -> dict[str, Any]:
        user = config["configurable"]["user_id"]
        namespace = ("memories", user)
        question = str(state["messages"][-1].content)
        recalled = [item.value["text"] for item in store.search(namespace, query=question, limit=3)]
        prompt = SystemMessage("Known about the user:\n" + "\n".join(recalled))
        answer = model.invoke([prompt, *state["messages"]])
        if question.lower().startswith("remember "):
            store.put(namespace, str(uuid.uuid4()), {"text": question[len("remember ") :]})
        return {"messages": [answer], "recalled": recalled}

    graph = StateGraph(NotesState)
    graph.add_node("respond", respond)
    graph.add_edge(START, "respond")
    graph.add_edge("respond", END)
    return graph.compile(store=store)


def langmem_app(store: BaseStore, model: GenericFakeChatModel) -> Any:
    from langgraph.prebuilt import create_react_agent
    from langmem import create_manage_memory_tool, create_search_memory_tool

    namespace = ("memories", "{langgraph_user_id}")
    tools = [create_manage_memory_tool(namespace), create_search_memory_tool(namespace)]
    return create_react_agent(model, tools=tools, store=store)


def scripted(steps: list[str]) -> ToolCallingFake:
    """Replies from a script: ``TOOL name {json args}`` is a tool call, anything else text."""
    replies = []
    for step in steps:
        if step.startswith("TOOL "):
            _, name, args = step.split(" ", 2)
            call = {"name": name, "args": json.loads(args), "id": f"call-{len(replies)}"}
            replies.append(AIMessage(content="", tool_calls=[call]))
        else:
            replies.append(AIMessage(content=step))
    return ToolCallingFake(messages=iter(replies))


def main(argv: list[str]) -> None:
    app_name, db, user, message, *steps = argv
    with ZeromemStore(db) as store:
        model = scripted(steps or ["Noted."])
        if app_name == "notes":
            config: RunnableConfig = {"configurable": {"user_id": user}}
            state = notes_app(store, model).invoke({"messages": [HumanMessage(message)]}, config)
            print(
                json.dumps({"recalled": state["recalled"], "answer": state["messages"][-1].content})
            )
        else:
            config = {"configurable": {"langgraph_user_id": user}}
            state = langmem_app(store, model).invoke({"messages": [HumanMessage(message)]}, config)
            tools = [str(m.content) for m in state["messages"] if isinstance(m, ToolMessage)]
            print(json.dumps({"tools": tools, "answer": state["messages"][-1].content}))


if __name__ == "__main__":
    main(sys.argv[1:])
