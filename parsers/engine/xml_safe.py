"""One safe way to read the XML of untrusted hand histories (Merge, Boss, Microgaming, iPoker).

Hand-history XML comes from files users collect from anywhere, so every document is bounded
before it is parsed, and anything that could declare an entity is read by defusedxml:

- DTDs, entity declarations and external references are refused (billion laughs, XXE by file
  or URL): a hand history never needs them. Any text holding ``<!`` (a declaration, comment or
  CDATA section) goes through defusedxml, which refuses them; text without ``<!`` cannot declare
  or reference an entity, so it is read by the standard library's C parser (defusedxml's
  pure-Python parser costs about three times as much per hand).
- A document over `MAX_DOCUMENT_CHARS` is refused before any parsing, so one huge element or
  attribute costs a length check, not a parse.
- Elements nested deeper than `MAX_DEPTH`, or more than `MAX_ELEMENTS` elements, stop the parse
  as soon as they are reached (within one 64 KiB slice of text).

The text given here is already decoded (parsers/text.py: BOM, UTF-8, else cp1252, so cp1252
bytes under a UTF-8 declaration are recovered rather than rejected); an XML declaration naming
another encoding is therefore dropped before parsing instead of being obeyed.

Every refusal is an `XmlRefused` whose message is the quarantine reason.
"""

from __future__ import annotations

import re
from xml.etree import ElementTree

import defusedxml
from defusedxml.ElementTree import DefusedXMLParser

__all__ = [
    "MAX_DEPTH",
    "MAX_DOCUMENT_CHARS",
    "MAX_ELEMENTS",
    "XmlRefused",
    "attribute",
    "read_document",
]

# A real hand is a few KB (a 28-hand Merge tournament file is 125 KB); 1 MiB leaves room for
# long chat logs while keeping a hostile element from costing more than a length check.
MAX_DOCUMENT_CHARS = 1 << 20
# Hand histories nest 4 or 5 levels deep.
MAX_DEPTH = 32
MAX_ELEMENTS = 50_000

_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")
_SLICE = 64 << 10  # characters fed to the parser between two checks of the limits


class XmlRefused(ValueError):
    """The document is unsafe or unreadable; the message says why (a quarantine reason)."""


class _BoundedTreeBuilder(ElementTree.TreeBuilder):
    """A tree builder that stops at the depth and element-count limits."""

    def __init__(self) -> None:
        super().__init__()
        self._depth = 0
        self._elements = 0

    def start(self, tag: str, attrs: dict[str, str]) -> ElementTree.Element:
        self._depth += 1
        self._elements += 1
        if self._depth > MAX_DEPTH:
            raise XmlRefused(f"unsafe XML: elements nested deeper than {MAX_DEPTH}")
        if self._elements > MAX_ELEMENTS:
            raise XmlRefused(f"unsafe XML: more than {MAX_ELEMENTS} elements")
        return super().start(tag, attrs)

    def end(self, tag: str) -> ElementTree.Element:
        self._depth -= 1
        return super().end(tag)


def read_document(text: str, what: str = "XML document") -> ElementTree.Element:
    """Parse ``text`` (one hand's element) safely; raise `XmlRefused` with a reason otherwise."""
    if len(text) > MAX_DOCUMENT_CHARS:
        raise XmlRefused(
            f"unsafe XML: {what} of {len(text):,} characters exceeds the"
            f" {MAX_DOCUMENT_CHARS:,}-character limit"
        )
    text = _DECLARATION.sub("", text, count=1)
    if "<!" in text:
        # A declaration (DOCTYPE, ENTITY), or a comment or CDATA section: defusedxml reads it
        # and refuses DTDs, entity declarations and external references.
        return _read_defused(text)
    root = _read_whole(text)
    if root is not None:
        return root
    return _read_pulled(text)


def _read_whole(text: str) -> ElementTree.Element | None:
    """The tree of ``text`` (holding no ``<!``) read in one call of the C parser, or None when
    it is malformed or breaks a limit: `_read_pulled` then finds the same refusal as before.

    Reading the events of a pull parser one by one in Python costs about as much as the parse;
    the limits are checked on the finished tree instead (the text is at most
    `MAX_DOCUMENT_CHARS`, so building it is bounded too), level by level without recursion.
    """
    try:
        parser = ElementTree.XMLParser()
        parser.feed(text)
        root = parser.close()
    except Exception:  # noqa: BLE001 - whatever it is, the pulled parse reports it as before
        return None
    # Depth: a level below holds only the children of elements that have some; leaves (most
    # elements) end there, so only the elements with children are carried down.
    parents = [root]
    for _ in range(MAX_DEPTH - 1):
        parents = [child for element in parents for child in element if len(child)]
        if not parents:
            break
    else:
        return None  # an element at the level below the deepest allowed: too deep
    return root if len(list(root.iter())) <= MAX_ELEMENTS else None


def _read_pulled(text: str) -> ElementTree.Element:
    """The parse in slices, its events counted as they come: stops at the first limit reached,
    which gives the exact reason of a refused document."""
    # Without any "<!" the text can neither declare nor reference an entity (only the five
    # predefined ones), so the standard library's C parser reads it, under the same limits:
    # fed in slices, its events are counted as they come and the parse stops at a limit.
    parser: ElementTree.XMLPullParser[ElementTree.Element] = ElementTree.XMLPullParser(
        events=("start", "end")
    )
    root: ElementTree.Element | None = None
    depth = elements = 0
    try:
        for begin in [*range(0, len(text), _SLICE), -1]:
            if begin >= 0:
                parser.feed(text[begin : begin + _SLICE])
            else:
                parser.close()  # the end of the text: the last events, or a truncation error
            for event, element in parser.read_events():  # type: ignore[misc]
                if event == "end":
                    depth -= 1
                    continue
                depth += 1
                elements += 1
                root = element if root is None else root  # type: ignore[assignment]
                if depth > MAX_DEPTH:
                    raise XmlRefused(f"unsafe XML: elements nested deeper than {MAX_DEPTH}")
                if elements > MAX_ELEMENTS:
                    raise XmlRefused(f"unsafe XML: more than {MAX_ELEMENTS} elements")
    except ElementTree.ParseError as error:
        raise XmlRefused(f"malformed XML: {error}") from None
    if root is None:
        raise XmlRefused("malformed XML: no element found")
    return root


def _read_defused(text: str) -> ElementTree.Element:
    parser = DefusedXMLParser(
        target=_BoundedTreeBuilder(), forbid_dtd=True, forbid_entities=True, forbid_external=True
    )
    try:
        parser.feed(text)
        root: ElementTree.Element = parser.close()
        return root
    except XmlRefused:
        raise
    except defusedxml.DTDForbidden:
        raise XmlRefused("unsafe XML: DTD (<!DOCTYPE>) refused") from None
    except defusedxml.EntitiesForbidden:
        raise XmlRefused("unsafe XML: entity declaration refused") from None
    except defusedxml.ExternalReferenceForbidden:
        raise XmlRefused("unsafe XML: external reference refused") from None
    except ElementTree.ParseError as error:
        raise XmlRefused(f"malformed XML: {error}") from None
    except RecursionError:
        raise XmlRefused(f"unsafe XML: elements nested deeper than {MAX_DEPTH}") from None


def attribute(element: ElementTree.Element, name: str) -> str | None:
    """An attribute's value stripped of surrounding blanks; None when absent or empty."""
    value = element.get(name)
    return (value.strip() or None) if value else None
