# Warnings for spate's own targets.
set(SPATE_WARNINGS -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare -Wno-missing-field-initializers)
