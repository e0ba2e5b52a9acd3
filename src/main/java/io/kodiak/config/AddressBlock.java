package io.kodiak.config;

import java.net.InetAddress;
import java.util.List;

/**
 * A block of IP addresses, "10.0.0.0/8" or "::1/128"; a bare address is a block of itself alone.
 * An IPv4 block holds IPv4 addresses only and an IPv6 block IPv6 ones (Java reads an IPv4-mapped
 * IPv6 peer as IPv4).
 */
public record AddressBlock(InetAddress network, int prefix) {
    static final String EXPECTED = "an IP address or an address block: address/prefix-length (0-32 for IPv4, 0-128 for IPv6)"
            + " with no bits set past the prefix, e.g. \"10.0.0.0/8\", \"127.0.0.1\" or \"::1/128\"";

    /** {@code text} as a block; null when it is none (a host name, a bad prefix, host bits set past it). */
    static AddressBlock parse(String text) {
        int slash = text.indexOf('/');
        InetAddress network = AddressLiterals.parse(slash < 0 ? text : text.substring(0, slash));
        if (network == null) {
            return null;
        }
        int bits = network.getAddress().length * 8;
        int prefix = bits;
        if (slash >= 0) {
            String length = text.substring(slash + 1);
            if (length.isEmpty() || length.length() > 3 || !length.chars().allMatch(Character::isDigit)) {
                return null;
            }
            prefix = Integer.parseInt(length);
            if (prefix > bits) {
                return null;
            }
        }
        AddressBlock block = new AddressBlock(network, prefix);
        // "10.0.0.1/8" is a typo for a /32 or for 10.0.0.0/8: refused rather than guessed.
        return hostBitsClear(network.getAddress(), prefix) ? block : null;
    }

    private static boolean hostBitsClear(byte[] address, int prefix) {
        for (int bit = prefix; bit < address.length * 8; bit++) {
            if ((address[bit / 8] & (0x80 >> (bit % 8))) != 0) {
                return false;
            }
        }
        return true;
    }

    /** True when {@code address} is in this block. */
    public boolean contains(InetAddress address) {
        byte[] mine = network.getAddress();
        byte[] theirs = address.getAddress();
        if (mine.length != theirs.length) {
            return false;
        }
        int whole = prefix / 8;
        for (int i = 0; i < whole; i++) {
            if (mine[i] != theirs[i]) {
                return false;
            }
        }
        int rest = prefix % 8;
        if (rest == 0) {
            return true;
        }
        int mask = 0xff << (8 - rest) & 0xff;
        return (mine[whole] & mask) == (theirs[whole] & mask);
    }

    /** True when one of {@code blocks} holds {@code address}. */
    public static boolean anyHolds(List<AddressBlock> blocks, InetAddress address) {
        for (AddressBlock block : blocks) {
            if (block.contains(address)) {
                return true;
            }
        }
        return false;
    }

    /** {@code key}'s list of blocks; each entry that is none is a problem naming it, its value and what was expected. */
    static List<AddressBlock> readList(ConfigReader keys, String key) {
        if (!keys.has(key) || keys.config().getValue(key).valueType() != com.typesafe.config.ConfigValueType.LIST) {
            keys.problem(key, keys.render(key), "a list of IP addresses or address blocks, e.g. [\"10.0.0.0/8\", \"::1/128\"]"
                    + " ([]: every peer)");
            return List.of();
        }
        List<AddressBlock> blocks = new java.util.ArrayList<>();
        List<? extends com.typesafe.config.ConfigValue> entries = keys.config().getList(key);
        for (int i = 0; i < entries.size(); i++) {
            com.typesafe.config.ConfigValue entry = entries.get(i);
            AddressBlock block = entry.valueType() == com.typesafe.config.ConfigValueType.STRING
                    ? parse(((String) entry.unwrapped()).trim()) : null;
            if (block == null) {
                keys.problem(key + "[" + i + "]", entry.render(ConfigProblem.SHOWN), EXPECTED);
            } else {
                blocks.add(block);
            }
        }
        return List.copyOf(blocks);
    }

    @Override
    public String toString() {
        return network.getHostAddress() + "/" + prefix;
    }
}
