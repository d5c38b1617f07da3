import WebImageCodecs
import Dispatch
import Foundation

/// The HTTP exchange's events: response, progress and the partial images of a progressive load.
extension DownloadOperation: FetchObserver {
    func fetchDidReceiveResponse(_ response: ImageResponseInfo, redirects: Int) {
        state.withLock { state in
            state.response = response
            state.metrics.responseAt = Date()
            state.metrics.statusCode = response.statusCode
            state.metrics.redirectCount = redirects
        }
    }

    func fetchDidResume(bytes: Int) {
        state.withLock { $0.metrics.resumedBytes += Int64(bytes) }
        DownloadInstrumentation.resumed(bytes: bytes, url: url, logger: fetcher.logger)
    }

    func fetchDidAcceptResponse(expected: Int64) {
        reportProgress(received: 0, expected: expected, force: true)
    }

    func fetchDidReceive(received count: Int, expected: Int64, snapshot: () -> Data) {
        let received = Int64(count)
        state.withLock { state in
            if state.metrics.firstByteAt == nil { state.metrics.firstByteAt = Date() }
            state.metrics.bytesReceived = received
        }
        reportProgress(received: received, expected: expected, force: false)
        if partialDecoder != nil, expected == 0 || received < expected { startPartialDecode(snapshot()) }
    }

    private func reportProgress(received: Int64, expected: Int64, force: Bool) {
        state.withLock { state in
            guard state.phase == .running else { return }
            if !force, expected > 0, received < expected {
                let fraction = Double(received) / Double(expected)
                guard fraction - state.lastReportedFraction >= plan.minimumProgressInterval else { return }
                state.lastReportedFraction = fraction
            }
            for handler in state.handlers {
                if let progress = handler.progress {
                    callbacks.enqueue { [url] in progress(received, expected, url) }
                }
            }
        }
        callbacks.drainElsewhere()
    }

    /// Decodes `buffer` as a partial image, off the cooperative pool. While a partial decode runs,
    /// only the newest body is kept and decoded after it: partials never queue up behind a slow
    /// decode, and the last bytes before a pause in the body are always shown.
    private func startPartialDecode(_ buffer: Data) {
        guard let decoder = partialDecoder else { return }
        let go = state.withLock { state -> Bool in
            guard state.phase == .running else { return false }
            guard !state.partialDecodeInFlight else {
                state.pendingPartial = buffer
                return false
            }
            state.partialDecodeInFlight = true
            return true
        }
        guard go else { return }
        DispatchQueue.global(qos: .utility).async { [self] in
            var next: Data? = buffer
            while let data = next {
                let image = decoder.partialImage(from: data)
                next = state.withLock { state -> Data? in
                    guard state.phase == .running else {
                        state.partialDecodeInFlight = false
                        state.pendingPartial = nil
                        return nil
                    }
                    if let image {
                        let result = ImageLoadResult(image: image, data: nil, error: nil, isFinished: false,
                                                     response: state.response)
                        for handler in state.handlers { enqueueCompletion(handler, result) }
                    }
                    let pending = state.pendingPartial
                    state.pendingPartial = nil
                    if pending == nil { state.partialDecodeInFlight = false }
                    return pending
                }
                callbacks.drainElsewhere()
            }
        }
    }
}
