"""Reading the camouflaged QR codes on the backs of Kipukas cards."""
