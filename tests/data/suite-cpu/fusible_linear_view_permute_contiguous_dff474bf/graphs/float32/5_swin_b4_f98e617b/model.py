import torch


class GraphModule(torch.nn.Module):
    def forward(self, L_self_modules_encoder_modules_layers_modules_0_modules_downsample_modules_reduction_parameters_weight_: torch.nn.parameter.Parameter, layer_norm_3: torch.Tensor):
        l_self_modules_encoder_modules_layers_modules_0_modules_downsample_modules_reduction_parameters_weight_ = L_self_modules_encoder_modules_layers_modules_0_modules_downsample_modules_reduction_parameters_weight_
        linear_6 = torch._C._nn.linear(layer_norm_3, l_self_modules_encoder_modules_layers_modules_0_modules_downsample_modules_reduction_parameters_weight_, None);  layer_norm_3 = l_self_modules_encoder_modules_layers_modules_0_modules_downsample_modules_reduction_parameters_weight_ = None
        view_14 = linear_6.view(2, 16, 16, 64)
        permute_1 = view_14.permute(0, 3, 1, 2);  view_14 = None
        contiguous_5 = permute_1.contiguous();  permute_1 = contiguous_5 = None
        return (linear_6,)
