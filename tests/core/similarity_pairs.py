"""A small labelled set for near-duplicate detection: pairs of memories, True when the second is
a rephrasing of the same fact, False when it states a different fact (many with shared words).
English and Chinese. The threshold in ``zeromem_cli.text.similarity`` is measured on this set."""

from __future__ import annotations

PAIRS: list[tuple[str, str, bool]] = [
    # English rephrasings of one fact
    (
        "The weekly report goes out on Fridays at 17:00",
        "Weekly report is sent Fridays at 17:00",
        True,
    ),
    ("User prefers dark mode in the editor", "The user prefers dark mode in their editor", True),
    ("Alice's birthday is on March 3rd", "Alice has her birthday on March 3rd", True),
    ("The staging database is db-2.internal", "Staging database: db-2.internal", True),
    ("Deploys happen every Tuesday morning", "Deploys happen on Tuesday mornings", True),
    ("Bob is allergic to peanuts", "Bob has a peanut allergy", True),
    (
        "Use pnpm, not npm, for the frontend project",
        "For the frontend project use pnpm instead of npm",
        True,
    ),
    (
        "The API rate limit is 100 requests per minute",
        "API rate limit: 100 requests per minute",
        True,
    ),
    (
        "Meeting notes are stored in the Notion team space",
        "Meeting notes are kept in the team space on Notion",
        True,
    ),
    ("Prefers answers in short bullet points", "Prefers short answers in bullet points", True),
    ("The project uses Python 3.12 and uv", "Project uses uv and Python 3.12", True),
    ("Carol manages the billing service", "The billing service is managed by Carol", True),
    # Chinese rephrasings
    ("周报每周五下午五点发送", "周报在每周五下午五点发出", True),
    ("用户喜欢深色模式", "用户偏好深色模式", True),
    ("测试服务器的地址是db-2.internal", "测试服务器地址：db-2.internal", True),
    ("小王对花生过敏", "小王花生过敏", True),
    ("每周二上午部署新版本", "新版本在每周二上午部署", True),
    ("项目使用Python 3.12", "这个项目用的是Python 3.12", True),
    ("会议纪要保存在Notion团队空间", "会议纪要存放在Notion的团队空间里", True),
    ("张经理负责计费服务", "计费服务由张经理负责", True),
    # English: different facts, often with shared words
    (
        "The weekly report goes out on Fridays at 17:00",
        "The monthly budget review is on the first Monday",
        False,
    ),
    ("User prefers dark mode in the editor", "User prefers tabs over spaces", False),
    ("Alice's birthday is on March 3rd", "Bob's birthday is on July 14th", False),
    ("The staging database is db-2.internal", "The production cache is redis-1.internal", False),
    ("Deploys happen every Tuesday morning", "Code freeze starts every Thursday evening", False),
    ("Bob is allergic to peanuts", "Bob likes hiking in the Alps", False),
    ("Use pnpm, not npm, for the frontend project", "The backend project is written in Go", False),
    ("The API rate limit is 100 requests per minute", "The API timeout is 30 seconds", False),
    (
        "Meeting notes are stored in the Notion team space",
        "Design files are stored in Figma",
        False,
    ),
    ("Prefers answers in short bullet points", "Prefers code examples in TypeScript", False),
    ("The project uses Python 3.12 and uv", "The team uses Slack for chat", False),
    ("Carol manages the billing service", "Dave is on call for the search service", False),
    ("The office is closed on public holidays", "The gym opens at 6am on weekdays", False),
    ("Lunch with Sam on Tuesday", "Dinner with Sam's parents on Saturday", False),
    # Chinese: different facts
    ("周报每周五下午五点发送", "月报每月一号上午九点提交", False),
    ("用户喜欢深色模式", "用户喜欢用空格缩进", False),
    ("测试服务器的地址是db-2.internal", "生产数据库在北京机房", False),
    ("小王对花生过敏", "小王喜欢周末去爬山", False),
    ("每周二上午部署新版本", "每周四晚上开始代码冻结", False),
    ("项目使用Python 3.12", "团队用飞书沟通", False),
    ("会议纪要保存在Notion团队空间", "设计稿存放在Figma", False),
    ("张经理负责计费服务", "李工负责搜索服务的值班", False),
]
