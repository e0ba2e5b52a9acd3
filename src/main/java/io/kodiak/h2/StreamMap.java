package io.kodiak.h2;

import java.util.ArrayList;
import java.util.List;

/**
 * Streams by id, without boxing the id (a DATA frame looks its stream up, and a boxed id past 127
 * is an allocation per frame): open addressing with linear probing, removal by shifting the
 * entries after it back. One per connection, on its loop.
 */
public final class StreamMap<V> {
    private int[] keys = new int[16];
    private Object[] values = new Object[16];
    private int size;

    public int size() {
        return size;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    @SuppressWarnings("unchecked")
    public V get(int id) {
        int mask = keys.length - 1;
        for (int i = slot(id, mask); values[i] != null; i = (i + 1) & mask) {
            if (keys[i] == id) {
                return (V) values[i];
            }
        }
        return null;
    }

    public void put(int id, V value) {
        if ((size + 1) * 2 > keys.length) {
            grow();
        }
        int mask = keys.length - 1;
        int i = slot(id, mask);
        while (values[i] != null) {
            if (keys[i] == id) {
                values[i] = value;
                return;
            }
            i = (i + 1) & mask;
        }
        keys[i] = id;
        values[i] = value;
        size++;
    }

    @SuppressWarnings("unchecked")
    public V remove(int id) {
        int mask = keys.length - 1;
        int i = slot(id, mask);
        while (values[i] != null && keys[i] != id) {
            i = (i + 1) & mask;
        }
        if (values[i] == null) {
            return null;
        }
        V removed = (V) values[i];
        values[i] = null;
        size--;
        // Entries after it that probed past this slot move back into it.
        for (int j = (i + 1) & mask; values[j] != null; j = (j + 1) & mask) {
            int home = slot(keys[j], mask);
            if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
                keys[i] = keys[j];
                values[i] = values[j];
                values[j] = null;
                i = j;
            }
        }
        return removed;
    }

    /** The values, in no order: a copy, so the caller may change the map while going through it. */
    @SuppressWarnings("unchecked")
    public List<V> values() {
        List<V> all = new ArrayList<>(size);
        for (Object value : values) {
            if (value != null) {
                all.add((V) value);
            }
        }
        return all;
    }

    public void clear() {
        java.util.Arrays.fill(values, null);
        size = 0;
    }

    private static int slot(int id, int mask) {
        // Client stream ids are odd and step by 2: spread them before masking.
        return (id * 0x9E3779B9 >>> 16 ^ id) & mask;
    }

    @SuppressWarnings("unchecked")
    private void grow() {
        int[] oldKeys = keys;
        Object[] oldValues = values;
        keys = new int[oldKeys.length * 2];
        values = new Object[oldValues.length * 2];
        size = 0;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldValues[i] != null) {
                put(oldKeys[i], (V) oldValues[i]);
            }
        }
    }
}
