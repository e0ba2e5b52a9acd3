package io.kodiak.loop;

import org.glassfish.grizzly.Connection;

import java.io.IOException;

/** Told on the accepting selector thread when {@code socket} failed to accept a connection. */
@FunctionalInterface
public interface AcceptFailures {
    void acceptFailed(Connection<?> socket, IOException error);
}
