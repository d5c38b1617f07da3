import NIOCore

/// One side of a pair that joins two channels on the same event loop: what one reads, the other
/// writes. Reads pause while the other side cannot take more (backpressure), and either side
/// closing closes both.
final class RelayGlueHandler: ChannelDuplexHandler {
    typealias InboundIn = NIOAny
    typealias OutboundIn = NIOAny
    typealias OutboundOut = NIOAny

    private var partner: RelayGlueHandler?
    private var context: ChannelHandlerContext?
    /// A read the pipeline asked for while the partner could not write.
    private var readPending = false

    private init() {}

    /// Two handlers, each the other's partner; add one to each channel.
    static func pair() -> (RelayGlueHandler, RelayGlueHandler) {
        let first = RelayGlueHandler()
        let second = RelayGlueHandler()
        first.partner = second
        second.partner = first
        return (first, second)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        partner = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        partner?.context?.write(data, promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        partner?.context?.flush()
    }

    func channelInactive(context: ChannelHandlerContext) {
        partner?.closeAfterWrites()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { partner?.resumeReading() }
        context.fireChannelWritabilityChanged()
    }

    func read(context: ChannelHandlerContext) {
        if partner?.context?.channel.isWritable ?? false {
            context.read()
        } else {
            readPending = true
        }
    }

    /// The partner has gone: close once what it sent has been written (closing at once would drop
    /// the end of a response the origin sent just before it hung up).
    private func closeAfterWrites() {
        guard let context else { return }
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(NIOAny(context.channel.allocator.buffer(capacity: 0)), promise: written)
        written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }

    /// The partner can take writes again: a held read goes ahead.
    private func resumeReading() {
        guard readPending, let context else { return }
        readPending = false
        context.read()
    }
}
