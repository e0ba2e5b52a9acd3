import io.vertx.core.AbstractVerticle;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.PoolOptions;
import io.vertx.httpproxy.HttpProxy;

/**
 * Vert.x's reverse proxy (vertx-http-proxy) as its documentation sets it up, for bin/bench.sh
 * throughput (target vertx): one event loop per core (a verticle instance each, sharing the port),
 * each with its own upstream client whose pool holds its share of Kodiak's 1000 connections per
 * upstream, keep-alive on.
 * Usage: java -cp CLASSPATH VertxProxy.java LISTEN_PORT UPSTREAM_PORT
 */
public class VertxProxy {
    public static void main(String[] args) {
        int port = Integer.parseInt(args[0]);
        int upstreamPort = Integer.parseInt(args[1]);
        int loops = Runtime.getRuntime().availableProcessors();
        Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(loops));
        vertx.deployVerticle(() -> new ProxyVerticle(port, upstreamPort, Math.max(1, 1000 / loops)),
                new DeploymentOptions().setInstances(loops))
                .onSuccess(id -> System.out.println("vertx proxy on 127.0.0.1:" + port + " -> 127.0.0.1:" + upstreamPort))
                .onFailure(error -> {
                    error.printStackTrace();
                    System.exit(1);
                });
    }

    static final class ProxyVerticle extends AbstractVerticle {
        private final int port;
        private final int upstreamPort;
        private final int poolSize;

        ProxyVerticle(int port, int upstreamPort, int poolSize) {
            this.port = port;
            this.upstreamPort = upstreamPort;
            this.poolSize = poolSize;
        }

        @Override
        public void start(Promise<Void> started) {
            HttpClient client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true),
                    new PoolOptions().setHttp1MaxSize(poolSize).setMaxWaitQueueSize(-1));
            HttpProxy proxy = HttpProxy.reverseProxy(client).origin(upstreamPort, "127.0.0.1");
            vertx.createHttpServer().requestHandler(proxy).listen(port, "127.0.0.1")
                    .<Void>mapEmpty().onComplete(started);
        }
    }
}
