// Found through the nvcc command's -I.
#pragma once
