# A helper file that does not follow the <n>_<Name>.py pattern.
