import CTIFF
import Foundation

/// What one TIFF directory (an image of the file) declares, read from its tags before any pixel
/// is decoded, and the header checks that refuse an implausible one.
struct TIFFDirectory {
    /// How to make this directory current again: its place in the main chain, or a SubIFD offset.
    enum Location: Equatable {
        case chained(UInt32)
        case subIFD(UInt64)
    }

    let location: Location
    /// The stored size (before the orientation is applied).
    let size: PixelSize
    let samplesPerPixel: Int
    let bitsPerSample: Int
    let sampleFormat: UInt16
    let photometric: UInt16
    let compression: UInt16
    let planarSeparate: Bool
    /// The ExtraSamples values (what each sample after the colour channels is).
    let extraSamples: [UInt16]
    let orientation: EXIFOrientation
    let inkSet: UInt16
    let isTiled: Bool
    /// True when the directory is marked as a reduced-resolution copy of another (SubfileType).
    let isReduced: Bool
    /// The embedded ICC profile (TIFFTAG_ICCPROFILE), if any.
    let icc: Data?

    /// Reads the current directory of `file`, found at `location`.
    init(_ file: TIFFFile, at location: Location) throws {
        let tif = file.tiff
        var width: UInt32 = 0, height: UInt32 = 0
        guard ctiff_get_u32(tif, UInt32(TIFFTAG_IMAGEWIDTH), &width) == 1,
              ctiff_get_u32(tif, UInt32(TIFFTAG_IMAGELENGTH), &height) == 1 else {
            throw WebImageError.badData("The TIFF directory has no ImageWidth or ImageLength tag.")
        }
        func value(_ tag: Int32) -> UInt16 {
            var v: UInt16 = 0
            _ = ctiff_get_u16_defaulted(tif, UInt32(tag), &v)
            return v
        }
        self.location = location
        size = PixelSize(width: Int(width), height: Int(height))
        samplesPerPixel = Int(value(TIFFTAG_SAMPLESPERPIXEL))
        bitsPerSample = Int(value(TIFFTAG_BITSPERSAMPLE))
        sampleFormat = value(TIFFTAG_SAMPLEFORMAT)
        compression = value(TIFFTAG_COMPRESSION)
        planarSeparate = value(TIFFTAG_PLANARCONFIG) == UInt16(PLANARCONFIG_SEPARATE)
        inkSet = value(TIFFTAG_INKSET)
        orientation = EXIFOrientation(rawValue: Int(value(TIFFTAG_ORIENTATION))) ?? .up
        var photometric: UInt16 = 0
        if ctiff_get_u16(tif, UInt32(TIFFTAG_PHOTOMETRIC), &photometric) != 1 {
            // No Photometric tag: libtiff's own guess (one sample: black is zero; three: RGB).
            photometric = UInt16(samplesPerPixel >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK)
        }
        self.photometric = photometric
        var extraCount: UInt16 = 0
        var extras: UnsafePointer<UInt16>?
        if ctiff_get_u16_array(tif, UInt32(TIFFTAG_EXTRASAMPLES), &extraCount, &extras) == 1, let extras {
            extraSamples = Array(UnsafeBufferPointer(start: extras, count: Int(extraCount)))
        } else {
            extraSamples = []
        }
        var subfile: UInt32 = 0
        _ = ctiff_get_u32(tif, UInt32(TIFFTAG_SUBFILETYPE), &subfile)
        isReduced = subfile & UInt32(FILETYPE_REDUCEDIMAGE) != 0
        isTiled = TIFFIsTiled(tif) != 0
        var iccCount: UInt32 = 0
        var iccBytes: UnsafeRawPointer?
        if ctiff_get_bytes(tif, UInt32(TIFFTAG_ICCPROFILE), &iccCount, &iccBytes) == 1, let iccBytes, iccCount > 0 {
            icc = Data(bytes: iccBytes, count: Int(iccCount))
        } else {
            icc = nil
        }
    }

    /// Makes this directory the current one of `file` again.
    func select(in file: TIFFFile) throws {
        let ok: Int32
        switch location {
        case .chained(let index): ok = TIFFSetDirectory(file.tiff, tdir_t(index))
        case .subIFD(let offset): ok = TIFFSetSubDirectory(file.tiff, offset)
        }
        guard ok == 1 else { throw TIFFFailure.error(file.messages, while: "reading the TIFF directory") }
    }

    /// Refuses, from the tags alone, a directory whose strips or tiles cannot be real: more of
    /// them than the file has room to list (each takes at least 4 bytes of offsets and counts),
    /// or tiles far larger than the image. Call with this directory current.
    func checkPlausible(_ file: TIFFFile) throws {
        let tif = file.tiff
        guard samplesPerPixel > 0, bitsPerSample > 0 else {
            throw WebImageError.badData("The TIFF declares \(samplesPerPixel) samples of \(bitsPerSample) bits per pixel.")
        }
        let chunks = Int(isTiled ? TIFFNumberOfTiles(tif) : TIFFNumberOfStrips(tif))
        let kind = isTiled ? "tiles" : "strips"
        guard chunks > 0 else {
            throw WebImageError.badData("The TIFF directory declares no \(kind) for its \(size) image.")
        }
        if chunks > 1, chunks > file.byteCount / 4 {
            throw WebImageError.badData("The TIFF declares \(chunks) \(kind) for its \(size) image, more than a file of \(file.byteCount) bytes can list; the file is corrupt.")
        }
        if isTiled {
            var tileWidth: UInt32 = 0, tileLength: UInt32 = 0
            _ = ctiff_get_u32(tif, UInt32(TIFFTAG_TILEWIDTH), &tileWidth)
            _ = ctiff_get_u32(tif, UInt32(TIFFTAG_TILELENGTH), &tileLength)
            let tile = Int(tileWidth) * Int(tileLength)
            guard tileWidth > 0, tileLength > 0, tile <= max(4 * size.area, 4096 * 4096) else {
                throw WebImageError.badData("The TIFF declares \(tileWidth)x\(tileLength) tiles for a \(size) image; the file is corrupt.")
            }
        }
    }
}
