"""Faces of zeromem inside other tools: each adapts the public ``MemoryStore`` API to another
program's plugin or hook system (``llm_plugin``: simonw's ``llm``), and nothing in the core
imports them."""
