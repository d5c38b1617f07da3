import Foundation
import WebImage

/// What `get` reports for one URL: the delivered image or the error.
struct GetReport: Sendable {
    let url: URL
    var index = 0
    var image: Image?
    var error: WebImageError?
    var cacheType: ImageCacheType = .none
    var bytes = 0
    var output: String?
    var ms = 0.0

    var ok: Bool { error == nil && image != nil }

    /// The JSON contract: `{"url","ok":true,"cacheType","width","height","frames","format",
    /// "bytes","output","ms"}` or `{"url","ok":false,"error":{…}}`.
    var jsonLine: JSONLine {
        var line = JSONLine()
        line.add("url", url.absoluteString)
        line.add("ok", ok)
        if let image, error == nil {
            line.add("cacheType", cacheType.name)
            line.add("width", image.width)
            line.add("height", image.height)
            line.add("frames", image.frameCount)
            line.add("format", image.format.rawValue)
            line.add("bytes", bytes)
            line.add("output", output)
            line.add("ms", ms)
        } else {
            line.addError(error ?? WebImageError(.notCached, "No image was delivered."))
        }
        return line
    }

    /// A row for the readable table.
    func tableRow(number: Int) -> [String] {
        let shown = url.absoluteString.count > 60 ? String(url.absoluteString.prefix(57)) + "..." : url.absoluteString
        guard let image, error == nil else {
            let error = error ?? WebImageError(.notCached, "No image was delivered.")
            let status = error.httpStatus.map { " \($0)" } ?? ""
            return [String(number), shown, "error" + status, "", "", "", "", "", String(format: "%.1f", ms), error.message]
        }
        return [String(number), shown, "ok", cacheType.name, "\(image.width)x\(image.height)",
                String(image.frameCount), image.format.rawValue, ByteCountText.format(bytes),
                String(format: "%.1f", ms), output ?? ""]
    }
}

extension ImageCacheType {
    /// `none`, `memory`, `disk` or `all`, as the JSON output spells it.
    var name: String {
        switch self {
        case .none: "none"
        case .memory: "memory"
        case .disk: "disk"
        case .all: "all"
        }
    }
}

/// Releases results in input order as they complete out of order.
struct OrderedPrinter {
    private var pending: [GetReport?]
    private var next = 0

    init(count: Int) {
        pending = Array(repeating: nil, count: count)
    }

    /// Records `report` for `index`; returns the reports now ready to print, in order.
    mutating func add(_ report: GetReport, at index: Int) -> [GetReport] {
        var report = report
        report.index = index
        pending[index] = report
        var ready: [GetReport] = []
        while next < pending.count, let item = pending[next] {
            ready.append(item)
            pending[next] = nil
            next += 1
        }
        return ready
    }
}
