import CTIFF

/// How a directory's samples become RGBA8, for the layouts the coder converts itself: unsigned
/// gray, RGB and palette samples of any depth from 1 to 16 bits and CMYK at 8 or 16, chunky or
/// planar, with or without alpha. 8- and 16-bit samples (and single-sample 1-, 2- and 4-bit gray
/// and palette in strips) are read band by band, in strips or tiles (``TIFFBands``); other depths
/// are read through libtiff's scanline API and unpacked here (``TIFFPackedRows``), in strips only.
/// Anything else (YCbCr other than in JPEG, CIE Lab, tiled odd depths, …) goes to libtiff's RGBA
/// interface (``TIFFRGBAFallback``); float samples and samples over 16 bits are refused
/// (``TIFFPixels``).
struct TIFFPixelFormat {
    enum Color {
        /// One channel; `whiteIsZero` for Photometric MinIsWhite.
        case gray(whiteIsZero: Bool)
        /// Indices into an RGBA table of 2^bits entries.
        case palette([UInt8])
        case rgb
        /// C, M, Y, K ink amounts (0 = no ink).
        case cmyk
    }

    enum Alpha: Equatable {
        case none
        /// Unassociated alpha: the colour is stored as is.
        case straight
        /// Associated alpha: the colour is stored multiplied by alpha.
        case premultiplied
    }

    let color: Color
    let alpha: Alpha
    /// 1 to 16.
    let bits: Int
    /// True when the samples are read as packed scanlines and unpacked by ``TIFFPackedRows``
    /// rather than band by band by ``TIFFBands``.
    let isPacked: Bool
    /// The samples per pixel as stored (colour, then extra samples).
    let samplesPerPixel: Int
    /// The colour channels (1, 3 or 4); alpha, when there is one, is the next sample.
    let colorChannels: Int

    /// What colour management converts from.
    var colorSource: ColorSource {
        switch color {
        case .gray: .gray
        case .palette, .rgb: .rgb
        case .cmyk: .cmyk(inverted: false)
        }
    }

    /// The format of `directory` (current in `file`), or nil when the coder leaves it to libtiff.
    /// For JPEG-compressed YCbCr it asks libtiff's JPEG codec for RGB, as libtiff's tools do.
    init?(_ directory: TIFFDirectory, in file: TIFFFile) {
        let bits = directory.bitsPerSample
        guard directory.sampleFormat == UInt16(SAMPLEFORMAT_UINT), (1...16).contains(bits) else { return nil }
        let color: Color
        switch Int32(directory.photometric) {
        case PHOTOMETRIC_MINISBLACK, PHOTOMETRIC_MINISWHITE:
            color = .gray(whiteIsZero: Int32(directory.photometric) == PHOTOMETRIC_MINISWHITE)
        case PHOTOMETRIC_RGB:
            color = .rgb
        case PHOTOMETRIC_YCBCR where Int32(directory.compression) == COMPRESSION_JPEG && bits == 8:
            guard ctiff_set_u16(file.tiff, UInt32(TIFFTAG_JPEGCOLORMODE), UInt16(JPEGCOLORMODE_RGB)) == 1 else { return nil }
            color = .rgb
        case PHOTOMETRIC_PALETTE:
            guard let table = Self.palette(file, bits: bits) else { return nil }
            color = .palette(table)
        case PHOTOMETRIC_SEPARATED where directory.inkSet == UInt16(INKSET_CMYK) && (bits == 8 || bits == 16):
            color = .cmyk
        default:
            return nil
        }
        let channels: Int
        switch color {
        case .gray, .palette: channels = 1
        case .rgb: channels = 3
        case .cmyk: channels = 4
        }
        let spp = directory.samplesPerPixel
        guard spp >= channels else { return nil }
        var isPalette = false
        if case .palette = color { isPalette = true }
        // Bands carry 8- and 16-bit samples, and 1-, 2- and 4-bit ones of a single-sample image
        // in strips; every other depth (and a palette over 8 bits) is unpacked from scanlines,
        // which libtiff reads from strips only, a few samples a pixel at most.
        let banded = (bits == 8 || (bits == 16 && !isPalette))
            || ([1, 2, 4].contains(bits) && spp == 1 && !directory.isTiled && !directory.planarSeparate)
        if !banded, directory.isTiled || spp > TIFFPackedRows.maxSamplesPerPixel { return nil }
        isPacked = !banded
        var alpha = Alpha.none
        if spp > channels {
            // Only the first extra sample can be alpha; an unspecified one (libtiff's name for a
            // sample the ExtraSamples tag does not declare) is not.
            switch directory.extraSamples.first.map(Int32.init) {
            case EXTRASAMPLE_ASSOCALPHA: alpha = .premultiplied
            case EXTRASAMPLE_UNASSALPHA: alpha = .straight
            default: alpha = .none
            }
        }
        if case .palette = color, alpha != .none { return nil }
        self.color = color
        self.alpha = alpha
        self.bits = bits
        samplesPerPixel = spp
        colorChannels = channels
    }

    /// This format with 16-bit samples: what ``TIFFPackedRows`` unpacks gray, RGB and alpha to.
    var widened: TIFFPixelFormat {
        TIFFPixelFormat(color: color, alpha: alpha, bits: 16, isPacked: false, samplesPerPixel: samplesPerPixel,
                        colorChannels: colorChannels)
    }

    private init(color: Color, alpha: Alpha, bits: Int, isPacked: Bool, samplesPerPixel: Int, colorChannels: Int) {
        self.color = color
        self.alpha = alpha
        self.bits = bits
        self.isPacked = isPacked
        self.samplesPerPixel = samplesPerPixel
        self.colorChannels = colorChannels
    }

    /// The colour map as RGBA entries; 8-bit values when every entry is below 256 (old writers
    /// stored them so, and libtiff reads them the same way), else 16-bit values rounded.
    private static func palette(_ file: TIFFFile, bits: Int) -> [UInt8]? {
        var red: UnsafePointer<UInt16>?, green: UnsafePointer<UInt16>?, blue: UnsafePointer<UInt16>?
        guard ctiff_get_colormap(file.tiff, &red, &green, &blue) == 1, let red, let green, let blue else { return nil }
        let count = 1 << bits
        let maps = [red, green, blue].map { Array(UnsafeBufferPointer(start: $0, count: count)) }
        let eightBit = maps.allSatisfy { $0.allSatisfy { $0 < 256 } }
        var table = [UInt8](repeating: 255, count: count * 4)
        for i in 0..<count {
            for c in 0..<3 {
                let v = maps[c][i]
                table[i * 4 + c] = eightBit ? UInt8(v) : TIFFSamples.round16(v)
            }
        }
        return table
    }
}
