package io.kodiak.exchange;

/** Waits for a stream on a connection many exchanges share (h2): one of the two calls comes, on the waiter's loop. */
public interface StreamWaiter {

    /** The stream the request goes out on. */
    void streamReady(UpstreamStream stream);

    /** No stream could be had: the connect failed, or none was free within connect-timeout. */
    void streamFailed(Throwable error);
}
