import WebImageCodecs
import Foundation

/// What decides whether a caller may share a download already in flight: the URL, plus every
/// setting that changes what the server is asked or which bytes are trusted.
///
/// SDWebImage shares one request per URL and lets the first caller's options win. That is kept
/// for callers whose key is equal; two settings would make a shared result wrong, so they are
/// part of the key and a caller that differs gets its own download:
/// - the validators: a conditional request can end in 304 (no bytes), which is only an answer
///   for the caller that sent them; a plain caller must get the image.
/// - certificate verification: a caller that verifies must never receive bytes fetched with
///   ``WebImageOptions/allowInvalidSSLCertificates``.
/// - the size limit (``WebImageContext/maximumResponseSize``): a caller must neither fail on
///   another's tighter limit nor receive a body larger than its own.
struct DownloadKey: Hashable, Sendable {
    let url: URL
    /// The validators sent as If-None-Match / If-Modified-Since; nil when there are none.
    let validators: HTTPValidators?
    let allowsInvalidCertificates: Bool
    /// The largest body accepted, in bytes.
    let maximumResponseSize: Int

    init(url: URL, validators: HTTPValidators?, allowsInvalidCertificates: Bool, maximumResponseSize: Int) {
        self.url = url
        self.validators = validators?.isEmpty == true ? nil : validators
        self.allowsInvalidCertificates = allowsInvalidCertificates
        self.maximumResponseSize = maximumResponseSize
    }
}
