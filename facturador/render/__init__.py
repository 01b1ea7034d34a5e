"""Printed representation of sales documents: the PDF (fpdf2) and the QR (render/qrcode.py)."""
