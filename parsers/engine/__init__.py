"""The text engine: everything a line-oriented site parser does that is not a fact of its site.

- `lines`: a block's lines as a frame (hand numbers, offsets), values carried from marker lines
  (streets, runs), local times to UTC.
- `line_forms`: a site's line kinds as a table of forms; the classification and decoding of lines.
- `line_kinds`: `TextFormat`, the line-form engine with street scopes and runs.
- `betting`: street totals from printed increments or to-amounts, all-in kinds by their effect.
- `stakes`: blinds and bets from a header's two stakes, as most sites print them.
- `checks`: the per-hand checks every site shares (seats, actors, amounts, cards).
- `hole_cards`: the hole-card rules every site and both PokerStars readers follow: what a
  sighting of a player's cards is (full, partial show, damaged), a seat's cards from its
  sightings, and the hands they quarantine.
- `assembly`: `HandTables`, what a site decoded, and `finish`: quarantine, notes, rejects and
  the canonical tables (`finish_files`: one result per file of a batch).
- `file_batches`: `FileBatchParser`, ``parse`` and ``parse_files`` (small files parsed together)
  of every text engine below from its decoding of a block.
- `anchored`: `AnchoredParser`, the interface of a site whose hands open with a known line.
- `block_parts`: `BlockParts`, what a PartyPoker-family site (Party, Pacific, Everleaf, Full Tilt)
  decoded, and `assembled`, with the decoding helpers those sites share.
- `kernels`: the compiled loops behind the street totals.
- `structured`: `XmlHandParser` and `HandRecord`, the engine of the formats with one structured
  element or JSON object per hand (Merge, Boss, Microgaming, iPoker XML; IGT JSON), with the
  decoding helpers they share (exact amounts, cards, seat, collection and all-in rows, stakes).
- `boss_schema`: `read_boss_hand`, the hand schema two sites print (Boss as XML, IGT as JSON),
  each passing its own card numbering.
- `xml_safe`: the one safe reader of untrusted XML (DTDs and entities refused, size, depth and
  element count bounded).

A site module holds its line forms, money, card and time formats, and its profile; it decodes its
lines (or its elements, through `structured`) into `HandTables` and hands them to `finish`.
"""
