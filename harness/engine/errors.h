#pragma once
// The two kinds of failure main tells apart. An AgreedError is raised alike on
// every rank (bad arguments, or an outcome the ranks agreed on through a
// collective, such as wrong results): main prints it once, from world rank 0,
// and every rank exits with its status, with no rank left waiting. Any other
// exception is a failure of one rank and ends the whole job.

#include "strategies/core/agreed_error.h"
