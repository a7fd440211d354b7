package org.seaweedfs.rdma.sidecar.fallback;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.streams.WriteStream;
import io.vertx.ext.web.codec.BodyCodec;
import io.vertx.ext.web.codec.spi.BodyStream;
import java.util.function.LongFunction;

/**
 * A web-client body codec that buffers at most {@code limit} bytes: a body that goes past it fails with the
 * failure {@code tooLarge} makes (given the bytes seen), and nothing more is kept. A body codec cannot see the
 * response headers, so the caller checks an announced Content-Length as well; this bound holds for chunked bodies
 * and servers that announce less than they send.
 */
final class BoundedBody implements BodyCodec<Buffer> {

    private final long limit;
    private final LongFunction<RuntimeException> tooLarge;

    BoundedBody(long limit, LongFunction<RuntimeException> tooLarge) {
        this.limit = limit;
        this.tooLarge = tooLarge;
    }

    @Override
    public BodyStream<Buffer> stream() {
        return new Stream();
    }

    private final class Stream implements BodyStream<Buffer> {
        private final Promise<Buffer> result = Promise.promise();
        private final Buffer body = Buffer.buffer();
        private long seen;

        @Override
        public Future<Buffer> result() {
            return result.future();
        }

        @Override
        public void handle(Throwable failure) {
            result.tryFail(failure);
        }

        @Override
        public Future<Void> write(Buffer data) {
            seen += data.length();
            if (seen > limit) {
                RuntimeException failure = tooLarge.apply(seen);
                result.tryFail(failure);
                return Future.failedFuture(failure);
            }
            body.appendBuffer(data);
            return Future.succeededFuture();
        }

        @Override
        public Future<Void> end() {
            result.tryComplete(body);
            return Future.succeededFuture();
        }

        @Override
        public WriteStream<Buffer> exceptionHandler(Handler<Throwable> handler) {
            return this;
        }

        @Override
        public WriteStream<Buffer> setWriteQueueMaxSize(int maxSize) {
            return this;
        }

        @Override
        public boolean writeQueueFull() {
            return false;
        }

        @Override
        public WriteStream<Buffer> drainHandler(Handler<Void> handler) {
            return this;
        }
    }
}
