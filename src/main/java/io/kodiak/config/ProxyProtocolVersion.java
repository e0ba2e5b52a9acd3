package io.kodiak.config;

import java.util.Optional;

/** What each new upstream connection opens with (proxy.upstream.proxy-protocol). */
public enum ProxyProtocolVersion implements ConfigNamed {
    /** Nothing: the request's bytes first. */
    OFF("off"),
    /** The PROXY protocol's text header. */
    V1("v1"),
    /** Its binary header. */
    V2("v2");

    private final String configName;

    ProxyProtocolVersion(String configName) {
        this.configName = configName;
    }

    @Override
    public String configName() {
        return configName;
    }

    public static Optional<ProxyProtocolVersion> parse(String value) {
        return ConfigNamed.parse(ProxyProtocolVersion.class, value);
    }

    public static String allNames() {
        return ConfigNamed.allNames(ProxyProtocolVersion.class, ", ");
    }
}
