package io.qbeast.trino.parquet;

import io.airlift.slice.Slice;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * SQL {@code LIKE} over UTF-8 bytes, as the engine matches {@code varchar}: {@code %} matches any
 * sequence of characters, {@code _} exactly one character (code point), the escape character makes
 * the next {@code %}, {@code _} or escape literal, everything else matches itself.
 *
 * <p>The pattern is cut at its {@code %} into segments of a fixed number of characters; the first
 * is anchored at the start (unless the pattern starts with {@code %}), the last at the end (unless
 * it ends with {@code %}), and each segment between is matched at its leftmost place after the
 * previous one: a segment of fixed length matched leftmost also ends leftmost, so no match is
 * missed (the classic wildcard argument).
 */
public final class LikeMatcher
{
    private final List<Segment> segments;
    private final boolean anchoredStart;
    private final boolean anchoredEnd;

    private LikeMatcher(List<Segment> segments, boolean anchoredStart, boolean anchoredEnd)
    {
        this.segments = List.copyOf(segments);
        this.anchoredStart = anchoredStart;
        this.anchoredEnd = anchoredEnd;
    }

    /**
     * @return empty when the engine would refuse the pattern: an escape that is not one character,
     * or an escape followed by anything but {@code %}, {@code _} or itself
     */
    public static Optional<LikeMatcher> compile(String pattern, Optional<String> escape)
    {
        int escapeCodePoint = -1;
        if (escape.isPresent()) {
            if (escape.get().codePointCount(0, escape.get().length()) != 1) {
                return Optional.empty();
            }
            escapeCodePoint = escape.get().codePointAt(0);
        }
        List<Segment> segments = new ArrayList<>();
        List<Element> current = new ArrayList<>();
        StringBuilder literal = new StringBuilder();
        boolean escaped = false;
        for (int index = 0; index < pattern.length(); ) {
            int codePoint = pattern.codePointAt(index);
            index += Character.charCount(codePoint);
            if (escaped) {
                if (codePoint != '%' && codePoint != '_' && codePoint != escapeCodePoint) {
                    return Optional.empty();
                }
                literal.appendCodePoint(codePoint);
                escaped = false;
            }
            else if (codePoint == escapeCodePoint) {
                escaped = true;
            }
            else if (codePoint == '%') {
                flush(literal, current);
                if (!current.isEmpty()) {
                    segments.add(new Segment(current));
                    current = new ArrayList<>();
                }
            }
            else if (codePoint == '_') {
                flush(literal, current);
                current.add(Element.ANY_ONE);
            }
            else {
                literal.appendCodePoint(codePoint);
            }
        }
        if (escaped) {
            return Optional.empty();
        }
        flush(literal, current);
        if (!current.isEmpty()) {
            segments.add(new Segment(current));
        }
        boolean anchoredStart = pattern.isEmpty() || pattern.codePointAt(0) != '%' || escapeCodePoint == '%';
        boolean anchoredEnd = !endsWithWildcard(pattern, escapeCodePoint);
        return Optional.of(new LikeMatcher(segments, anchoredStart, anchoredEnd));
    }

    // whether the pattern's last character is an unescaped %
    private static boolean endsWithWildcard(String pattern, int escapeCodePoint)
    {
        boolean escaped = false;
        boolean lastIsWildcard = false;
        for (int index = 0; index < pattern.length(); ) {
            int codePoint = pattern.codePointAt(index);
            index += Character.charCount(codePoint);
            if (escaped) {
                escaped = false;
                lastIsWildcard = false;
            }
            else if (codePoint == escapeCodePoint) {
                escaped = true;
            }
            else {
                lastIsWildcard = codePoint == '%';
            }
        }
        return lastIsWildcard;
    }

    private static void flush(StringBuilder literal, List<Element> elements)
    {
        if (!literal.isEmpty()) {
            elements.add(new Element(literal.toString().getBytes(StandardCharsets.UTF_8)));
            literal.setLength(0);
        }
    }

    /** Whether {@code value[offset, offset + length)} matches. */
    public boolean matches(Slice value, int offset, int length)
    {
        int end = offset + length;
        if (segments.isEmpty()) {
            // "" matches only the empty string; "%", "%%"... match everything
            return !(anchoredStart && anchoredEnd) || length == 0;
        }
        int cursor = offset;
        int first = 0;
        int last = segments.size();
        if (anchoredStart) {
            int matched = segments.getFirst().matchAt(value, cursor, end);
            if (matched < 0) {
                return false;
            }
            if (segments.size() == 1 && anchoredEnd) {
                return matched == end;
            }
            cursor = matched;
            first = 1;
        }
        Segment tail = null;
        if (anchoredEnd && last > first) {
            tail = segments.get(last - 1);
            last--;
        }
        for (int segment = first; segment < last; segment++) {
            cursor = segments.get(segment).find(value, cursor, end);
            if (cursor < 0) {
                return false;
            }
        }
        if (tail == null) {
            return true;
        }
        int start = tail.suffixStart(value, cursor, end);
        return start >= 0 && tail.matchAt(value, start, end) == end;
    }

    /** A run of literal bytes, or {@code _} (one character). */
    private record Element(byte[] literal)
    {
        static final Element ANY_ONE = new Element(null);
    }

    /** Characters between two {@code %}: literals and {@code _}, a fixed number of characters. */
    private static final class Segment
    {
        private final Element[] elements;
        private final int characters;

        Segment(List<Element> elements)
        {
            this.elements = elements.toArray(Element[]::new);
            int count = 0;
            for (Element element : this.elements) {
                if (element.literal() == null) {
                    count++;
                }
                else {
                    String text = new String(element.literal(), StandardCharsets.UTF_8);
                    count += text.codePointCount(0, text.length());
                }
            }
            this.characters = count;
        }

        /** @return where the match starting at {@code start} ends, or -1 */
        int matchAt(Slice value, int start, int end)
        {
            int position = start;
            for (Element element : elements) {
                byte[] literal = element.literal();
                if (literal == null) {
                    if (position >= end) {
                        return -1;
                    }
                    position += characterLength(value.getByte(position));
                    if (position > end) {
                        return -1;
                    }
                }
                else {
                    if (end - position < literal.length) {
                        return -1;
                    }
                    for (int i = 0; i < literal.length; i++) {
                        if (value.getByte(position + i) != literal[i]) {
                            return -1;
                        }
                    }
                    position += literal.length;
                }
            }
            return position;
        }

        /** @return the end of the leftmost match at or after {@code from}, or -1 */
        int find(Slice value, int from, int end)
        {
            for (int start = from; start <= end; start += start < end ? characterLength(value.getByte(start)) : 1) {
                int matched = matchAt(value, start, end);
                if (matched >= 0) {
                    return matched;
                }
            }
            return -1;
        }

        /** @return the start of the last {@code characters} characters of the value, if not before {@code from}; else -1 */
        int suffixStart(Slice value, int from, int end)
        {
            int position = end;
            for (int remaining = characters; remaining > 0; remaining--) {
                position--;
                // step back over UTF-8 continuation bytes (10xxxxxx) to the character's first byte
                while (position > from && (value.getByte(position) & 0xC0) == 0x80) {
                    position--;
                }
                if (position < from) {
                    return -1;
                }
            }
            return position;
        }
    }

    // bytes of the UTF-8 character that starts with this byte (1 for a byte that cannot start one)
    private static int characterLength(byte first)
    {
        int unsigned = first & 0xFF;
        if (unsigned < 0xC0) {
            return 1;
        }
        if (unsigned < 0xE0) {
            return 2;
        }
        if (unsigned < 0xF0) {
            return 3;
        }
        return unsigned < 0xF8 ? 4 : 1;
    }
}
