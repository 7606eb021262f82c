# The seed article's MemoryAgent, as a Mem0 user writes it from Mem0's docs: run it with
# "remember" in one process and "recall" in the next (tests/frameworks/test_mem0_seed.py runs
# it unchanged but for the import line).
import sys

from mem0 import Memory


class MemoryAgent:
    def __init__(self, user_id: str):
        self.user_id = user_id
        self.memory = Memory()

    def remember(self, text: str, **metadata):
        return self.memory.add(text, user_id=self.user_id, metadata=metadata)

    def recall(self, question: str, limit: int = 3) -> list[str]:
        found = self.memory.search(question, user_id=self.user_id, limit=limit)
        return [hit["memory"] for hit in found["results"]]


if __name__ == "__main__":
    agent = MemoryAgent(sys.argv[2])
    if sys.argv[1] == "remember":
        agent.remember("My favourite programming language is Rust", topic="coding")
        agent.remember("I am allergic to peanuts", topic="health")
        print("stored")
    else:
        for line in agent.recall(" ".join(sys.argv[3:])):
            print(line)
