/* modelDescription.xml checked against the structure FMI 2.0 gives it (Modelica Association,
 * "Functional Mock-up Interface for Model Exchange and Co-Simulation", version 2.0, 2014,
 * §2.2 and §4.3: the schema's elements, their order and attributes with their types, and the
 * rules the text adds: causality/variability/initial combinations, start values, unique names
 * and value references, the structured naming grammar, ModelStructure listing exactly the
 * outputs and initial unknowns in order). No XSD of FMI 2.0 ships in a Debian package, so
 * the structure is checked here by hand with libxml2. Used by tests/system/test_fmu.c. */
#ifndef MBS_TESTS_FMI2_CHECK_H
#define MBS_TESTS_FMI2_CHECK_H

#include <stddef.h>

/* 0 when the document in text (len bytes) is a valid FMI 2.0 co-simulation model
   description, else -1 with the first problem found in err. */
int fmi2_check_description(const char *text, size_t len, char *err, size_t n);
/* 1 if name follows the structured naming convention's grammar (FMI 2.0 §2.2.9). */
int fmi2_structured_name(const char *name);

#endif
