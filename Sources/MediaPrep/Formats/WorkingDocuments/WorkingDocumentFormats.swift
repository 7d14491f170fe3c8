/// Working files sent as files (Photoshop, GIMP, PaintShop Pro, OpenEXR, DPX, FITS, DICOM, SVG): what
/// names their sender emptied in place, every other byte as it was.
enum WorkingDocuments {}
