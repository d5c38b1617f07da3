import WebImageCodecs
import WebImageLoading
import Foundation

/// How a cache hit is revalidated, decided from its stored HTTP freshness.
enum Revalidation: Sendable {
    /// No revalidation: a miss, or a hit used as it is.
    case none
    /// `refreshCached`: the hit was delivered; the loader asks whether it changed.
    case refresh(stored: HTTPValidators?)
    /// `respectsHTTPFreshness` on a stale hit: nothing was delivered yet; the hit is delivered
    /// after a 304, the new image after a 200.
    case beforeUse(ImageCacheQueryResult, stored: HTTPValidators?)

    var isRevalidating: Bool {
        if case .none = self { return false }
        return true
    }

    var stored: HTTPValidators? {
        switch self {
        case .none: nil
        case .refresh(let stored), .beforeUse(_, let stored): stored
        }
    }
}

/// HTTP freshness for `refreshCached` and `respectsHTTPFreshness`: what a hit's stored
/// freshness says, the validators stored with a download, and the revalidation in the background.
extension ImageManager {
    /// What to do with a cache hit before the download decision: nil when neither option applies
    /// (or `fromCacheOnly` rules out a request); `.none` when the hit was delivered here.
    func revalidationOfHit(_ request: ImageManagerRequest, _ hit: ImageCacheQueryResult) -> Revalidation? {
        let refresh = request.options.contains(.refreshCached)
        guard refresh || request.options.contains(.respectsHTTPFreshness),
              !request.options.contains(.fromCacheOnly) else { return nil }
        let stored = request.originalKey.flatMap { request.originalCache.validators(forKey: $0) }
        switch stored?.freshness?.verdict(at: currentDate()) ?? .stale {
        case .fresh:
            deliverHit(request, hit)
            return Revalidation.none
        case .staleWhileRevalidate where !refresh:
            deliverHit(request, hit)
            revalidateInBackground(request)
            return Revalidation.none
        default:
            return refresh ? .refresh(stored: stored) : .beforeUse(hit, stored: stored)
        }
    }

    /// Ends the load with the cached image.
    func deliverHit(_ request: ImageManagerRequest, _ hit: ImageCacheQueryResult) {
        request.operation.deliverFinal(request.result(image: hit.image, data: hit.data, cacheType: hit.cacheType,
                                                      byteCount: hit.data?.count ?? 0))
    }

    /// A `refreshCached` load of the same image whose results nobody waits for: it revalidates the
    /// entry and, when the image changed, replaces it in the caches.
    private func revalidateInBackground(_ request: ImageManagerRequest) {
        var options = request.options.subtracting([.respectsHTTPFreshness, .highPriority, .waitStoreCache])
        options.formUnion([.refreshCached, .lowPriority])
        var context = request.context
        context.callbackQueue = .immediate
        loadImage(with: request.url, options: options, context: context) { _ in }
    }

    /// The validators and freshness to store with a downloaded image (its freshness counted from
    /// now, on ``currentDate``); nil when the response says nothing of either.
    func validatorsToStore(from response: ImageResponseInfo?) -> HTTPValidators? {
        guard let response else { return nil }
        var validators = response.validators
        validators.freshness = HTTPFreshness(headers: response.headers, receivedAt: currentDate())
        return validators.isEmpty ? nil : validators
    }

    /// The stored validators after a 304: the response's own where it sent them, and the stored
    /// freshness renewed from now.
    func renewedValidators(_ stored: HTTPValidators?, by response: ImageResponseInfo?) -> HTTPValidators? {
        let headers = response?.headers ?? []
        let sent = response?.validators ?? HTTPValidators()
        let now = currentDate()
        let freshness = stored?.freshness?.renewed(by: headers, receivedAt: now)
            ?? HTTPFreshness(headers: headers, receivedAt: now)
        let renewed = HTTPValidators(etag: sent.etag ?? stored?.etag, lastModified: sent.lastModified ?? stored?.lastModified,
                                     freshness: freshness)
        return renewed.isEmpty ? nil : renewed
    }

    /// True when a response may not be written to disk for this load (`no-store` under
    /// `respectsHTTPFreshness`).
    func forbidsDiskStore(_ request: ImageManagerRequest, response: ImageResponseInfo?) -> Bool {
        guard request.options.contains(.respectsHTTPFreshness), let response else { return false }
        return HTTPFreshness(headers: response.headers, receivedAt: Date())?.noStore ?? false
    }
}
