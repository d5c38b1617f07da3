import WebImage

/// Applies URL options to a ``ProcessingOptions`` in order, a later option overriding an earlier
/// one, with imgproxy's names (full and short) and argument rules.
struct OptionApplier: Sendable {
    /// Presets by name, already split into options.
    let presets: [String: [URLOption]]
    /// Whether `max_src_resolution` and `max_src_file_size` may be used (only when URLs are signed).
    let allowsSecurityOptions: Bool
    /// The current unix time for `expires`; nil skips the check (when presets are validated).
    let now: Int64?

    /// Applies `list`; `presetChain` holds the presets being applied, so a preset naming itself
    /// (directly or through another) is skipped instead of recursing.
    func apply(_ list: [URLOption], to options: inout ProcessingOptions, presetChain: [String] = []) throws(ImageURLError) {
        for option in list {
            try apply(option, to: &options, presetChain: presetChain)
        }
    }

    func apply(_ option: URLOption, to options: inout ProcessingOptions, presetChain: [String]) throws(ImageURLError) {
        switch option.name {
        case "resize", "rs":
            try option.expect(atMost: 8)
            if !option.arguments[0].isEmpty { options.resizingType = try resizingType(option, 0) }
            if option.arguments.count > 1 { try applySize(option, from: 1, to: &options) }
        case "size", "s":
            try option.expect(atMost: 7)
            try applySize(option, from: 0, to: &options)
        case "resizing_type", "rt":
            try option.expect(atMost: 1)
            options.resizingType = try resizingType(option, 0)
        case "width", "w":
            try option.expect(atMost: 1)
            options.width = try option.integer(0, in: 0...Int.max, "a width (a whole number, 0 or more)")
        case "height", "h":
            try option.expect(atMost: 1)
            options.height = try option.integer(0, in: 0...Int.max, "a height (a whole number, 0 or more)")
        case "min-width", "mw":
            try option.expect(atMost: 1)
            options.minWidth = try option.integer(0, in: 0...Int.max, "a minimum width (a whole number, 0 or more)")
        case "min-height", "mh":
            try option.expect(atMost: 1)
            options.minHeight = try option.integer(0, in: 0...Int.max, "a minimum height (a whole number, 0 or more)")
        case "zoom", "z":
            try option.expect(atMost: 2)
            options.zoomX = try option.number(0, atLeast: 0, exclusive: true, "a zoom factor above 0")
            options.zoomY = options.zoomX
            if option.arguments.count > 1 {
                options.zoomY = try option.number(1, atLeast: 0, exclusive: true, "a zoom factor above 0")
            }
        case "dpr":
            try option.expect(atMost: 1)
            options.dpr = try option.number(0, atLeast: 0, exclusive: true, "a device pixel ratio above 0")
        case "enlarge", "el":
            options.enlarge = try option.bool()
        case "extend", "ex":
            try option.expect(atMost: 4)
            try applyExtend(option, from: 0, to: &options.extend)
        case "extend_aspect_ratio", "extend_ar", "exar":
            try option.expect(atMost: 4)
            try applyExtend(option, from: 0, to: &options.extendAspectRatio)
        case "padding", "pd":
            try applyPadding(option, to: &options.padding)
        case "pixelate", "pix":
            try option.expect(atMost: 1)
            options.pixelate = try option.integer(0, in: 0...Int.max, "a pixelation block size in pixels (a whole number, 0 or more)")
        case "watermark", "wm":
            options.watermark = try watermark(option, current: options.watermark)
        case "raw":
            options.raw = try option.bool()
        case "resizing_algorithm", "ra":
            try option.expect(atMost: 1)
            options.resizingAlgorithm = try Self.resizingAlgorithm(option)
        case "gravity", "g":
            options.gravity = try option.gravity(from: 0, allowed: ProcessingOptions.GravityType.allCases)
        case "crop", "c":
            options.crop = try crop(option)
        case "auto_rotate", "ar":
            options.autoRotate = try option.bool()
        case "rotate", "rot":
            try option.expect(atMost: 1)
            let angle = try option.integer(0, in: Int.min...Int.max, "an angle in degrees")
            guard angle % 90 == 0 else { throw .invalidArgument(option.name, "the angle \(angle) is not a multiple of 90.") }
            options.rotate = (angle % 360 + 360) % 360
        case "flip", "fl":
            try option.expect(atMost: 2)
            if !option.arguments[0].isEmpty { options.flipHorizontal = URLOption.bool(option.arguments[0]) }
            if option.arguments.count > 1, !option.arguments[1].isEmpty {
                options.flipVertical = URLOption.bool(option.arguments[1])
            }
        case "background", "bg":
            options.background = try background(option)
        case "blur", "bl":
            try option.expect(atMost: 1)
            options.blur = try option.number(0, atLeast: 0, "a blur sigma (0 or more)")
        case "sharpen", "sh":
            try option.expect(atMost: 1)
            options.sharpen = try option.number(0, atLeast: 0, "a sharpen sigma (0 or more)")
        case "quality", "q":
            try option.expect(atMost: 1)
            options.quality = try option.integer(0, in: 0...100, "a quality from 0 to 100")
        case "format_quality", "fq":
            try applyFormatQuality(option, to: &options)
        case "format", "f", "ext":
            try option.expect(atMost: 1)
            try option.applyFormat(option.arguments[0], to: &options)
        case "preset", "pr":
            try applyPresets(option.arguments, to: &options, presetChain: presetChain)
        case "cachebuster", "cb":
            try option.expect(atMost: 1)
            options.cacheBuster = option.arguments[0].isEmpty ? nil : option.arguments[0]
        case "expires", "exp":
            try option.expect(atMost: 1)
            guard let timestamp = Int64(option.arguments[0]) else {
                throw .invalidArgument(option.name, "\"\(option.arguments[0])\" is not a unix timestamp.")
            }
            if timestamp > 0, let now, timestamp < now { throw .expired(timestamp) }
            options.expires = timestamp > 0 ? timestamp : nil
        case "filename", "fn":
            options.filename = try filename(option)
        case "return_attachment", "att":
            options.returnAttachment = try option.bool()
        case "strip_metadata", "sm":
            options.stripMetadata = try option.bool()
        case "max_src_resolution", "msr":
            guard allowsSecurityOptions else { throw .forbiddenOption(option.name) }
            try option.expect(atMost: 1)
            options.maxSourceResolution = try option.number(0, atLeast: 0, "a resolution in megapixels (0 or more)")
        case "max_src_file_size", "msfs":
            guard allowsSecurityOptions else { throw .forbiddenOption(option.name) }
            try option.expect(atMost: 1)
            options.maxSourceFileSize = try option.integer(0, in: 0...Int.max, "a size in bytes (0 or more)")
        case "trim", "t":
            try applyTrim(option, to: &options)
        case "max_bytes", "mb":
            try option.expect(atMost: 1)
            options.maxBytes = try option.integer(0, in: 0...Int.max, "a size in bytes (a whole number, 0 or more)")
        case "keep_copyright", "kcr":
            options.keepCopyright = try option.bool()
        case "strip_color_profile", "scp":
            options.stripColorProfile = try option.bool()
        default:
            throw .unknownOption(option.name, supportedByImgproxy: Self.imgproxyOnly.contains(option.name))
        }
    }

    /// `threshold[:color[:equal_hor[:equal_ver]]]`: an empty threshold turns trimming off, an
    /// empty colour takes the top-left pixel, an empty equal flag keeps the current one.
    private func applyTrim(_ option: URLOption, to options: inout ProcessingOptions) throws(ImageURLError) {
        try option.expect(atMost: 4)
        let arguments = option.arguments
        func given(_ index: Int) -> Bool { arguments.count > index && !arguments[index].isEmpty }
        let color = given(1) ? try option.hexColor(arguments[1]) : nil
        guard given(0) else {
            options.trim = nil
            return
        }
        let threshold = try option.number(0, atLeast: 0, "a trim threshold (0 or more)")
        var trim = options.trim ?? ProcessingOptions.Trim(threshold: threshold)
        trim.threshold = threshold
        trim.color = color
        if given(2) { trim.equalHorizontal = URLOption.bool(arguments[2]) }
        if given(3) { trim.equalVertical = URLOption.bool(arguments[3]) }
        options.trim = trim
    }

    /// `w:h:enlarge:extend[:gravity…]` from `start`; an empty argument keeps the current value.
    private func applySize(_ option: URLOption, from start: Int, to options: inout ProcessingOptions) throws(ImageURLError) {
        let arguments = option.arguments
        func given(_ index: Int) -> Bool { arguments.count > start + index && !arguments[start + index].isEmpty }
        if given(0) { options.width = try option.integer(start, in: 0...Int.max, "a width (a whole number, 0 or more)") }
        if given(1) { options.height = try option.integer(start + 1, in: 0...Int.max, "a height (a whole number, 0 or more)") }
        if given(2) { options.enlarge = URLOption.bool(arguments[start + 2]) }
        if given(3) { try applyExtend(option, from: start + 3, to: &options.extend) }
    }

    /// `enabled[:gravity[:x:y]]` from `start`; without a gravity the current one is kept.
    private func applyExtend(_ option: URLOption, from start: Int, to extend: inout ProcessingOptions.Extend) throws(ImageURLError) {
        extend.enabled = URLOption.bool(option.arguments[start])
        if option.arguments.count > start + 1 {
            extend.gravity = try option.gravity(from: start + 1, allowed: Self.extendGravities)
        }
    }

    /// `top[:right[:bottom[:left]]]`, CSS-like: an empty or missing right or bottom takes the top's
    /// value and an empty or missing left the right's, when that side has been set; an empty top
    /// keeps the current one.
    private func applyPadding(_ option: URLOption, to padding: inout ProcessingOptions.Padding) throws(ImageURLError) {
        try option.expect(atMost: 4)
        func side(_ index: Int) throws(ImageURLError) -> Int? {
            guard index < option.arguments.count, !option.arguments[index].isEmpty else { return nil }
            return try option.integer(index, in: 0...Self.maxPadding, "a padding in pixels (a whole number from 0 to \(Self.maxPadding))")
        }
        if let top = try side(0) { padding.top = top }
        if let right = try side(1) { padding.right = right } else if let top = padding.top { padding.right = top }
        if let bottom = try side(2) { padding.bottom = bottom } else if let top = padding.top { padding.bottom = top }
        if let left = try side(3) { padding.left = left } else if let right = padding.right { padding.left = right }
    }

    /// The largest padding a side may ask for (2³¹ − 1, the largest size the geometry computes
    /// with); the plan scales the whole result, padding included, to the result-dimension limit.
    static let maxPadding = Int(Int32.max)

    private func resizingType(_ option: URLOption, _ index: Int) throws(ImageURLError) -> ProcessingOptions.ResizingType {
        guard let type = ProcessingOptions.ResizingType(rawValue: option.arguments[index]) else {
            throw .invalidArgument(option.name, "\"\(option.arguments[index])\" is not a resizing type (fit, fill, fill-down, force, auto).")
        }
        return type
    }

    /// `w[:h[:gravity…]]`: pixels from 1, fractions below 1, 0 the whole side; both 0 is no crop.
    private func crop(_ option: URLOption) throws(ImageURLError) -> ProcessingOptions.Crop? {
        let width = try option.number(0, atLeast: 0, "a crop width (0 or more)")
        var height = 0.0
        if option.arguments.count > 1 { height = try option.number(1, atLeast: 0, "a crop height (0 or more)") }
        var gravity: ProcessingOptions.Gravity?
        if option.arguments.count > 2 {
            gravity = try option.gravity(from: 2, allowed: ProcessingOptions.GravityType.allCases)
        }
        return width == 0 && height == 0 ? nil : ProcessingOptions.Crop(width: width, height: height, gravity: gravity)
    }

    /// `R:G:B` (0–255 each) or hex `rgb` / `rrggbb`; an empty argument turns the background off.
    private func background(_ option: URLOption) throws(ImageURLError) -> RGBA? {
        switch option.arguments.count {
        case 1:
            if option.arguments[0].isEmpty { return nil }
            return try option.hexColor(option.arguments[0])
        case 3:
            var channels: [UInt8] = []
            for index in 0..<3 {
                channels.append(UInt8(try option.integer(index, in: 0...255, "a colour channel from 0 to 255")))
            }
            return RGBA(r: channels[0], g: channels[1], b: channels[2])
        default:
            throw .invalidArgument(option.name, "a colour is R:G:B or hex rgb / rrggbb, got \(option.arguments.count) arguments.")
        }
    }

    /// `format:quality` pairs; a quality of 0 removes the format's entry.
    private func applyFormatQuality(_ option: URLOption, to options: inout ProcessingOptions) throws(ImageURLError) {
        guard option.arguments.count % 2 == 0 else {
            throw .invalidArgument(option.name, "takes format:quality pairs; \"\(option.arguments.last!)\" has no quality.")
        }
        for index in stride(from: 0, to: option.arguments.count, by: 2) {
            let format = try option.format(option.arguments[index])
            let quality = try option.integer(index + 1, in: 0...100, "a quality from 0 to 100")
            options.formatQuality[format] = quality == 0 ? nil : quality
        }
    }

    /// `name[:encoded]`: verbatim (not percent-decoded), or base64url when `encoded` is true.
    private func filename(_ option: URLOption) throws(ImageURLError) -> String? {
        try option.expect(atMost: 2)
        var name = option.arguments[0]
        if option.arguments.count > 1, URLOption.bool(option.arguments[1]) {
            var encoded = Substring(name)
            while encoded.last == "=" { encoded.removeLast() }
            guard let bytes = Base64URL.decode(encoded), let decoded = String(validating: bytes, as: UTF8.self) else {
                throw .invalidArgument(option.name, "\"\(name)\" is not URL-safe base64 of a UTF-8 name.")
            }
            name = decoded
        }
        return name.isEmpty ? nil : name
    }

    private func applyPresets(_ names: [String], to options: inout ProcessingOptions, presetChain: [String]) throws(ImageURLError) {
        for name in names {
            guard let preset = presets[name] else { throw .unknownPreset(name) }
            if presetChain.contains(name) { continue }
            try apply(preset, to: &options, presetChain: presetChain + [name])
        }
    }

    /// The filters `resizing_algorithm` names: imgproxy's five (the library's area filter is not one).
    static let resizingAlgorithms: [ResamplingFilter] = [.nearest, .linear, .cubic, .lanczos2, .lanczos3]

    private static func resizingAlgorithm(_ option: URLOption) throws(ImageURLError) -> ResamplingFilter {
        let text = option.arguments[0]
        guard let filter = ResamplingFilter(rawValue: text), resizingAlgorithms.contains(filter) else {
            throw .invalidArgument(option.name, "\"\(text)\" is not a resizing algorithm (\(resizingAlgorithms.map(\.rawValue).joined(separator: ", "))).")
        }
        return filter
    }

    /// Anchors `extend` accepts: every gravity but smart.
    static let extendGravities = ProcessingOptions.GravityType.allCases.filter { $0 != .smart }

    /// imgproxy options this server does not implement, so the error can say so.
    static let imgproxyOnly: Set<String> = [
        "enforce_thumbnail", "eth", "skip_processing", "skp", "max_animation_frames", "maf",
        "max_animation_frame_resolution", "mafr", "max_result_dimension", "mrd", "unsharp_masking", "ush",
        "adjust", "a", "brightness", "br", "contrast", "co", "saturation", "sa",
        "crop_aspect_ratio", "crop_ar", "car", "dpi", "page", "pg", "pages", "pgs", "disable_animation", "da",
        "fallback_image_url", "fiu", "style", "st", "watermark_url", "wmu", "watermark_text", "wmt",
    ]
}
