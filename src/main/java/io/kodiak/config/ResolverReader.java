package io.kodiak.config;

import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads {@code proxy.resolver}: the DNS servers asked for the upstream names that are resolved
 * while Kodiak runs (servers with resolve = true, groups with discovery), the longest an answer
 * is used, and how long a query may take.
 */
final class ResolverReader {
    /** Each byte 0-255: only a literal is accepted, so reading the setting never asks DNS itself. */
    private static final String SERVER = "an IP address and port of a DNS server, e.g. \"127.0.0.53:53\" or \"[::1]:53\"";

    private final ConfigReader keys;

    ResolverReader(ConfigReader keys) {
        this.keys = keys;
    }

    ProxyConfig.Resolver read(String at) {
        List<InetSocketAddress> servers = servers(at + ".servers");
        Duration valid = keys.duration(at + ".valid", Duration.ofSeconds(1), "a duration from 1s to 1d, e.g. 30s");
        if (valid.compareTo(Duration.ofDays(1)) > 0) {
            keys.problem(at + ".valid", keys.render(at + ".valid"), "a duration from 1s to 1d, e.g. 30s");
        }
        Duration timeout = keys.duration(at + ".timeout", Duration.ofMillis(100), "a duration from 100ms to 30s, e.g. 2s");
        if (timeout.compareTo(Duration.ofSeconds(30)) > 0) {
            keys.problem(at + ".timeout", keys.render(at + ".timeout"), "a duration from 100ms to 30s, e.g. 2s");
        }
        return new ProxyConfig.Resolver(servers, valid, timeout);
    }

    private List<InetSocketAddress> servers(String key) {
        if (!keys.has(key) || keys.config().getValue(key).valueType() != ConfigValueType.LIST) {
            keys.problem(key, keys.render(key), "a list of DNS servers, e.g. [\"127.0.0.53:53\"] ([]: those of /etc/resolv.conf)");
            return List.of();
        }
        List<InetSocketAddress> servers = new ArrayList<>();
        List<? extends ConfigValue> entries = keys.config().getList(key);
        for (int i = 0; i < entries.size(); i++) {
            ConfigValue entry = entries.get(i);
            String at = key + "[" + i + "]";
            InetSocketAddress server = entry.valueType() == ConfigValueType.STRING ? parse((String) entry.unwrapped()) : null;
            if (server == null) {
                keys.problem(at, entry.render(ConfigProblem.SHOWN), SERVER);
            } else {
                servers.add(server);
            }
        }
        return List.copyOf(servers);
    }

    /** host:port with an address literal for host (IPv6 in brackets), or null. */
    static InetSocketAddress parse(String text) {
        int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            return null;
        }
        String host = text.substring(0, colon);
        String port = text.substring(colon + 1);
        if (!port.chars().allMatch(Character::isDigit) || port.length() > 5) {
            return null;
        }
        int number = Integer.parseInt(port);
        if (number < 1 || number > 65535) {
            return null;
        }
        boolean bracketed = host.startsWith("[") && host.endsWith("]");
        if (bracketed) {
            host = host.substring(1, host.length() - 1);
        }
        // IPv6 in brackets, IPv4 without.
        InetAddress address = bracketed == host.contains(":") ? AddressLiterals.parse(host) : null;
        return address == null ? null : new InetSocketAddress(address, number);
    }
}
