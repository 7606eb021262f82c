"""Related English words, so ``my relatives`` can find ``my cousin's wedding``.

A memory often names the thing a question asks about by another word: a kind of it (cousin
for relatives, Fitbit's "smartwatch" for devices) or a synonym (job / career, car / vehicle).
BM25 cannot connect them. This is a small table of general-purpose English, written by
hand for zeromem (no model, no download): 159 synonym groups and 66 broad words with their
kinds, 737 distinct words, ~1,700 related pairs. It is low-weight query expansion: ``search``
looks the related words up in a second pass whose BM25 counts ``Ranking.related`` of a query
word's own (``zeromem_cli.search``), so a memory holding the asked word still ranks above one
holding only a related word.

Two relations:
- synonym groups (each word finds the others): ``job work career occupation profession``;
- broad words and their kinds, one way: ``relative`` finds ``cousin`` and ``aunt``, but
  ``cousin`` does not find ``aunt``.

Lookup is by the lower-case word or its singular (``relatives`` -> ``relative``); the index's
porter stemmer matches the plurals and tenses of what is found. Only Latin words are looked
up: the table is English.
"""

from __future__ import annotations

import functools

# One group per line: every word of a line is related to every other word of it.
_SYNONYMS = """
kid child children kiddo
car vehicle automobile auto
job work career occupation profession employment
boss manager supervisor
coworker colleague
company employer firm business
salary pay wage wages income paycheck
money cash funds savings
buy purchase bought
shop store shopping
home house
apartment flat condo
doctor physician
sick ill illness
disease condition illness
medicine medication meds pill pills prescription
hospital clinic
dog puppy pup
cat kitten kitty
aquarium tank fishtank
trip travel journey vacation holiday getaway
flight plane airline airport
film movie cinema
show series tv television
music song songs tune tunes
novel book
exercise workout fitness training gym
run running jog jogging
dinner supper
food dish dishes cuisine meal
cook cooking bake baking recipe recipes
restaurant cafe diner eatery bistro
drink beverage
friend buddy pal mate
partner spouse
husband spouse
wife spouse
boyfriend partner
girlfriend partner
fiance fiancee engaged
wedding marriage married bride groom
honeymoon wedding
school college university
study studying studies
teacher instructor professor tutor
student pupil
exam test quiz
hobby interest interests pastime passion
game gaming games
concert gig
party celebration gathering
gift present presents
clothes clothing outfit outfits apparel
shoes sneakers footwear
phone smartphone cellphone mobile iphone
computer laptop pc desktop
tv television
garden gardening yard backyard
homegrown garden harvest grow
evening night tonight
fix repair mend
help assist support
talk chat conversation
plan planning schedule
goal aim target objective ambition
dream ambition aspiration
problem issue trouble
idea suggestion recommendation tip tips advice
recommend suggest
cost price expense spent spend
cheap inexpensive affordable
expensive pricey costly
volunteer volunteering charity nonprofit
sleep bedtime nap
clean cleaning tidy declutter
rent lease landlord
neighborhood area community
bike bicycle cycling
boat ship yacht sailing
beach seaside coast shore
hike hiking trek trail
camping camp campfire tent
museum gallery exhibit exhibition
lesson class course workshop
injury injured hurt wound
pain ache sore
baby infant newborn
pregnant pregnancy expecting
sofa couch
photo picture photograph pic snapshot photography
painting artwork drawing sketch
writer author
sad unhappy upset depressed
happy glad joyful
angry mad furious
worried anxious nervous stressed anxiety stress
afraid scared fear frightened
tired exhausted fatigue
begin start started
finish complete completed
move moving relocate relocation
city town
country nation
church religion faith
allergy allergic
diet nutrition eating
vegetarian vegan plant-based
grandma grandmother granny
grandpa grandfather
mom mother mum mommy
dad father daddy
brother bro
sister sis
pet pets
therapy counseling therapist
medical health healthcare
birthday bday
anniversary celebration
parents mom dad
degree diploma graduation graduate
award prize trophy
competition contest tournament championship
team squad
coach trainer
hair haircut hairstyle
makeup cosmetics
perfume fragrance cologne
jewelry jewellery
watch smartwatch
car sedan suv
truck pickup
motorcycle motorbike
bus transit commute
train railway subway
podcast episode
language languages
instrument instruments
guitar guitarist
piano pianist
dance dancing dancer
sing singing singer
paint painting painter
donate donation donated
insurance policy coverage
loan mortgage debt
invest investment investing stocks
budget budgeting spending
groceries grocery supermarket
coffee espresso latte cappuccino
tea matcha chai
wine vineyard winery
beer brewery
snack snacks treat treats
dessert desserts sweets cake cookies
breakfast brunch
lunch luncheon
weekend saturday sunday
yoga pilates meditation
swim swimming pool
""".strip()

# A broad word, a colon, then its kinds: the broad word finds its kinds, never the reverse (a
# long list goes on under the same broad word on the next line).
_KINDS = """
relative: cousin aunt uncle niece nephew grandparent grandmother grandfather grandma grandpa sister
relative: brother sibling parent mother father mom dad in-law
family: cousin aunt uncle niece nephew grandparent grandma grandpa sister brother sibling parent
family: mom dad mother father son daughter kids children husband wife spouse
sibling: sister brother
parent: mother father mom dad mum
grandparent: grandmother grandfather grandma grandpa
child: son daughter kids baby toddler
kid: son daughter baby toddler
pet: dog cat puppy kitten fish bird hamster rabbit turtle parrot guinea
animal: dog cat bird fish horse rabbit turtle
vehicle: car truck van suv motorcycle bike scooter
device: phone smartphone laptop tablet smartwatch watch tracker monitor machine fitbit gadget
gadget: phone smartphone laptop tablet smartwatch headphones earbuds
electronics: phone laptop tablet tv camera headphones console
appliance: fridge refrigerator oven microwave dishwasher washer dryer blender vacuum
furniture: sofa couch table chair bed desk dresser bookshelf
clothing: shirt dress jacket coat jeans pants sweater skirt shoes boots
shoes: sneakers boots sandals heels
jewelry: ring necklace bracelet earrings
instrument: guitar piano violin drums ukulele flute saxophone cello keyboard
sport: soccer football basketball tennis baseball golf hockey volleyball swimming cycling running
sports: soccer football basketball tennis baseball golf hockey volleyball swimming cycling running
exercise: yoga running cycling swimming pilates lifting jogging hiking
meal: breakfast lunch dinner brunch supper
food: pizza pasta salad soup sandwich chicken rice bread
drink: coffee tea juice wine beer soda smoothie cocktail
beverage: coffee tea juice wine beer soda smoothie
fruit: apple banana orange grape strawberry berries mango
vegetable: tomato tomatoes carrot lettuce spinach potato onion pepper broccoli
vegetables: tomato tomatoes carrot lettuce spinach potato onion pepper broccoli
herb: basil mint parsley rosemary thyme cilantro oregano
herbs: basil mint parsley rosemary thyme cilantro oregano
plant: flower flowers herb tree succulent fern vegetable seedling
plants: flowers herbs trees succulents ferns vegetables seedlings
flower: rose tulip lily daisy orchid sunflower
fish: tetra tetras guppy betta goldfish gourami pleco
art: painting drawing sculpture pottery photography sketch
craft: knitting sewing crochet pottery woodworking
hobby: painting drawing reading gardening cooking baking hiking photography knitting gaming
music: rock jazz pop classical hip-hop country
genre: rock jazz pop classical fantasy thriller mystery romance
book: novel memoir biography
show: series sitcom documentary
game: chess puzzle boardgame videogame
holiday: christmas thanksgiving easter halloween hanukkah
celebration: birthday anniversary wedding party graduation
event: wedding birthday graduation funeral party concert festival anniversary
milestone: wedding graduation birthday anniversary promotion
degree: bachelor master masters phd mba
school: college university
education: school college university degree course
health: doctor medication fitness diet sleep exercise
illness: flu cold cancer diabetes asthma infection
condition: diabetes asthma allergy arthritis
doctor: dentist therapist pediatrician surgeon physician
medication: pill pills insulin inhaler antibiotics
trip: flight hotel vacation
travel: flight hotel trip
accommodation: hotel hostel airbnb motel resort cabin
transport: car bus train bike subway taxi uber
workout: yoga running cycling lifting pilates
season: spring summer autumn fall winter
weather: rain snow sunny storm wind
evening: night dinner pm sunset
morning: breakfast sunrise am
job: engineer teacher nurse manager developer designer
profession: engineer teacher nurse lawyer doctor designer developer
""".strip()

# The most related words one query word brings (a long kinds line is cut, not searched whole).
MAX_RELATED = 16


@functools.cache
def _table() -> dict[str, tuple[str, ...]]:
    """Word -> its related words (built on first use: most queries never need it)."""
    related: dict[str, dict[str, None]] = {}
    for line in _SYNONYMS.splitlines():
        words = line.split()
        for word in words:
            found = related.setdefault(word, {})
            found.update(dict.fromkeys(w for w in words if w != word))
    for line in _KINDS.splitlines():
        broad, _, kinds = line.partition(":")
        found = related.setdefault(broad.strip(), {})
        found.update(dict.fromkeys(w for w in kinds.split() if w != broad.strip()))
    return {word: tuple(found)[:MAX_RELATED] for word, found in related.items()}


@functools.lru_cache(maxsize=4096)
def related_words(word: str) -> tuple[str, ...]:
    """The words related to ``word`` (a synonym, or a kind of it), () for most words."""
    if len(word) < 2 or not word.isascii():
        return ()
    word = word.lower()
    table = _table()
    for form in _forms(word):
        found = table.get(form)
        if found is not None:
            return tuple(w for w in found if w != word)
    return ()


def _forms(word: str) -> tuple[str, ...]:
    """``word`` and the singulars it may be the plural of, most likely first."""
    forms = [word]
    if word.endswith("ies") and len(word) > 4:
        forms.append(word[:-3] + "y")
    if word.endswith("es") and len(word) > 3:
        forms.append(word[:-2])
    if word.endswith("s") and len(word) > 2:
        forms.append(word[:-1])
    return tuple(forms)


def table_size() -> tuple[int, int]:
    """(headwords, related pairs) in the table: what the docstring's size claim is checked by."""
    table = _table()
    return len(table), sum(len(found) for found in table.values())
