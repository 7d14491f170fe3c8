/// Documents and archives (`Documents/`): a PDF and a ZIP are rebuilt by their library (the probe
/// calls `PDFCleaner` and `ZipPackageCleaner` with the file's path); a TAR and an HTML page are
/// rewritten by ranges.
enum DocumentFormats {}
