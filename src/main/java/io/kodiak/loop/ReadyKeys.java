package io.kodiak.loop;

import java.nio.channels.SelectionKey;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.function.Consumer;

/**
 * The keys one select found ready, in the order the selector gave them, for one selector runner:
 * filled by the selector's action, iterated once and cleared by Grizzly's runner, then filled
 * again. The set is its own iterator, so a select allocates nothing once the array has grown to
 * the largest round. Not a general set: {@link #contains} is a scan, and a key offered twice in
 * one select (the JDK allows it; its epoll selector does not do it) is held twice, and handled
 * twice, which finds nothing more to read or write the second time.
 */
final class ReadyKeys extends AbstractSet<SelectionKey> implements Consumer<SelectionKey>, Iterator<SelectionKey> {
    private SelectionKey[] keys = new SelectionKey[64];
    private int size;
    /** The next key {@link #next} gives. */
    private int cursor;

    @Override
    public void accept(SelectionKey key) {
        if (size == keys.length) {
            keys = Arrays.copyOf(keys, size * 2);
        }
        keys[size++] = key;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public Iterator<SelectionKey> iterator() {
        cursor = 0;
        return this;
    }

    @Override
    public boolean hasNext() {
        return cursor < size;
    }

    @Override
    public SelectionKey next() {
        if (cursor >= size) {
            throw new NoSuchElementException();
        }
        return keys[cursor++];
    }

    /** A scan, without the cursor: Grizzly may be iterating. */
    @Override
    public boolean contains(Object key) {
        for (int i = 0; i < size; i++) {
            if (keys[i] == key) {
                return true;
            }
        }
        return false;
    }

    /** Without the cursor, for a log line or a debugger mid-iteration. */
    @Override
    public String toString() {
        return "ReadyKeys[" + size + " ready, " + cursor + " handled]";
    }

    @Override
    public void clear() {
        // Dropped references: a closed connection's key must not stay reachable from here.
        Arrays.fill(keys, 0, size, null);
        size = 0;
        cursor = 0;
    }
}
