package io.kodiak.config;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * One upstream group as configured under {@code proxy.upstreams.NAME}, or the implicit group of
 * one server behind a route whose URL names a host:port. {@code pool} holds the group's
 * connection settings (proxy.upstream's, overridden per group); {@code healthCheck} is null when
 * no active checks run. {@code srv}: the SRV name whose records are the group's servers
 * (discovery.srv; {@code servers} is then empty), else null.
 */
public record UpstreamGroupConfig(String name, List<Server> servers, Balance balance, HashKey hashKey,
                                  Passive passive, HealthCheck healthCheck, Retry retry, ProxyConfig.Upstream pool,
                                  boolean implicit, String srv) {

    public UpstreamGroupConfig(String name, List<Server> servers, Balance balance, HashKey hashKey, Passive passive,
                               HealthCheck healthCheck, Retry retry, ProxyConfig.Upstream pool, boolean implicit) {
        this(name, servers, balance, hashKey, passive, healthCheck, retry, pool, implicit, null);
    }

    /** The same group serving {@code found} (the addresses its names resolve to now). */
    public UpstreamGroupConfig withServers(List<Server> found) {
        return new UpstreamGroupConfig(name, List.copyOf(found), balance, hashKey, passive, healthCheck, retry, pool, implicit, srv);
    }

    /** Whether some of its servers are found in DNS while Kodiak runs (resolve = true, or discovery). */
    public boolean discovers() {
        return srv != null || servers.stream().anyMatch(Server::resolve);
    }

    /** The group of one server behind a route whose URL names host:port: no health state, no retries to others. */
    static UpstreamGroupConfig single(String name, String url, String host, int port, boolean tls, ProxyConfig.Upstream pool) {
        return new UpstreamGroupConfig(name, List.of(new Server(url, host, port, 1, false, tls)), Balance.ROUND_ROBIN,
                null, Passive.OFF, null, Retry.NONE, pool, true);
    }

    /**
     * One server: its address, its share of the traffic, whether it stands by for the others, and
     * whether it speaks TLS (https://). {@code resolve}: host is a name looked up while Kodiak
     * runs, each of its addresses a server. {@code name}: for a server found that way, the DNS
     * name its address {@code host} came from (TLS's server name), else null.
     */
    public record Server(String url, String host, int port, int weight, boolean backup, boolean tls, boolean resolve,
                         String name) {
        public Server(String url, String host, int port, int weight, boolean backup, boolean tls) {
            this(url, host, port, weight, backup, tls, false, null);
        }

        /** The name TLS sends and verifies: the DNS name a found address came from, else host. */
        public String tlsHost() {
            return name != null ? name : host;
        }

        /** host:port as sent and logged; IPv6 literals in brackets. */
        public String authority() {
            return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
        }
    }

    /** nginx's max_fails / fail_timeout; {@code maxFails} 0 turns passive health off. */
    public record Passive(int maxFails, Duration failTimeout) {
        public static final Passive OFF = new Passive(0, Duration.ofSeconds(10));

        public boolean enabled() {
            return maxFails > 0;
        }
    }

    /** An HTTP GET to {@code path} on each server every {@code interval}; HAProxy's fall/rise. */
    public record HealthCheck(String path, Duration interval, Duration timeout, int rise, int fall) {
    }

    /** Tries per request, the conditions that allow another, and the share of requests retries may add. */
    public record Retry(int attempts, Set<RetryOn> on, double budget) {
        public static final Retry NONE = new Retry(1, Set.of(), 0);
    }

    /** What the hash balancer hashes: a request header, a cookie, or the client's address. */
    public record HashKey(Kind kind, String name) {
        public enum Kind { HEADER, COOKIE, CLIENT_ADDRESS }

        public static Optional<HashKey> parse(String text) {
            if (text.equals("client-address")) {
                return Optional.of(new HashKey(Kind.CLIENT_ADDRESS, null));
            }
            int colon = text.indexOf(':');
            if (colon <= 0 || colon == text.length() - 1) {
                return Optional.empty();
            }
            String name = text.substring(colon + 1);
            if (!name.chars().allMatch(c -> c > ' ' && c < 127 && "()<>@,;:\\\"/[]?={}".indexOf(c) < 0)) {
                return Optional.empty();
            }
            return switch (text.substring(0, colon)) {
                case "header" -> Optional.of(new HashKey(Kind.HEADER, name));
                case "cookie" -> Optional.of(new HashKey(Kind.COOKIE, name));
                default -> Optional.empty();
            };
        }
    }

    public enum Balance implements ConfigNamed {
        ROUND_ROBIN("round-robin"),
        LEAST_CONNECTIONS("least-connections"),
        RANDOM_TWO("random-two"),
        HASH("hash");

        private final String configName;

        Balance(String configName) {
            this.configName = configName;
        }

        @Override
        public String configName() {
            return configName;
        }

        static Optional<Balance> parse(String name) {
            return ConfigNamed.parse(Balance.class, name);
        }

        static String allNames() {
            return ConfigNamed.allNames(Balance.class, " | ");
        }
    }

    /** The conditions under which a request may go to another server (retry.on). */
    public enum RetryOn implements ConfigNamed {
        /** Connect refused, reset or timed out: the request was never sent. */
        CONNECT_FAILURE("connect-failure"),
        /** The connection closed or reset after the request was sent, before any response byte. */
        RESET("reset"),
        /** No response head within response-timeout. */
        TIMEOUT("timeout"),
        /** A response head that breaks HTTP/1.1's rules (garbage, a malformed status line or field), nothing of it relayed. */
        INVALID_RESPONSE("invalid-response"),
        STATUS_502("502"),
        STATUS_503("503"),
        STATUS_504("504");

        private final String configName;

        RetryOn(String configName) {
            this.configName = configName;
        }

        @Override
        public String configName() {
            return configName;
        }

        /** The condition a response status stands for, if any. */
        public static RetryOn ofStatus(int status) {
            return switch (status) {
                case 502 -> STATUS_502;
                case 503 -> STATUS_503;
                case 504 -> STATUS_504;
                default -> null;
            };
        }

        static Optional<RetryOn> parse(String name) {
            return ConfigNamed.parse(RetryOn.class, name);
        }

        static String allNames() {
            return ConfigNamed.allNames(RetryOn.class, ", ");
        }
    }
}
