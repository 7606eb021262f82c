# The seed article's first example, as a Mem0 user writes it from Mem0's docs. The tests run
# it unchanged but for the import line (tests/frameworks/test_mem0_seed.py).
from mem0 import Memory

m = Memory()

# Store a memory, with metadata
result = m.add(
    "I am working on improving my tennis skills. Suggest some online courses.",
    user_id="alice",
    metadata={"category": "hobbies"},
)
print("added:", result)

m.add("I prefer morning workouts before work", user_id="alice")

# Search
related = m.search("tennis skills", user_id="alice", limit=3)
for hit in related["results"]:
    print(f"{hit['score']:.3f} {hit['memory']}")
assert related["results"], "the tennis memory is found"
assert "tennis" in related["results"][0]["memory"]

# Everything stored for alice
all_memories = m.get_all(user_id="alice")
print("all:", [x["memory"] for x in all_memories["results"]])
assert len(all_memories["results"]) == 2

# Update, then read the history
memory_id = related["results"][0]["id"]
m.update(memory_id=memory_id, data="Likes to play tennis on weekends")
print("now:", m.get(memory_id)["memory"])
history = m.history(memory_id=memory_id)
print("history:", [(h["event"], h["old_memory"], h["new_memory"]) for h in history])
assert [h["event"] for h in history] == ["ADD", "UPDATE"]

# Delete
m.delete(memory_id=memory_id)
assert m.get(memory_id) is None
print("left:", [x["memory"] for x in m.get_all(user_id="alice")["results"]])
